// Bootstrap (schema.py): FalkorDB serialises writes per graph (write_lock.py); an index
// on id is all it needs.
CREATE INDEX FOR (n:GraphMemMeta) ON (n.id)
