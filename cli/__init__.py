"""The `graphmem` command line: a thin shell over graphmem_neo4j.

Installed as graphmem_neo4j.cli.
"""
