// Bootstrap (schema.py): one key per hash.
CREATE CONSTRAINT graphmem_key_hash IF NOT EXISTS
FOR (n:GraphMemKey) REQUIRE n.hash IS UNIQUE
