"""Cypher queries, one file per query: `<layer>/<name>.cypher`, with engine variants
`<name>.neo4j.cypher` / `<name>.falkordb.cypher` beside it. Loaded by graphmem_neo4j.queries."""
