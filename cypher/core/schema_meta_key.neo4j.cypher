// Bootstrap (schema.py): one GraphMemMeta node per id even when two processes init at once.
CREATE CONSTRAINT graphmem_meta_id IF NOT EXISTS
FOR (n:GraphMemMeta) REQUIRE n.id IS UNIQUE
