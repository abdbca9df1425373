// Bootstrap (schema.py): one key per hash; FalkorDB serialises writes, an index is enough.
CREATE INDEX FOR (n:GraphMemKey) ON (n.hash)
