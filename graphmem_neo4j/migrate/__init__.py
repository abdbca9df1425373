"""Adopt memory graphs other tools wrote into Neo4j: Mem0 1.0.x's graph store and Graphiti.

source.py reads the source database in read-only sessions, mem0.py and graphiti.py turn its
rows into a plan (per space: entities, facts, turns, what is skipped and why), writer.py
stores a plan through graphmem's own rows, idempotently.
"""
