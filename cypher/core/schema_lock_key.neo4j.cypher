// Bootstrap (schema.py): one lease node per lock even when two processes take it at once.
CREATE CONSTRAINT graphmem_lock_id IF NOT EXISTS
FOR (n:GraphMemLock) REQUIRE n.id IS UNIQUE
