// Bootstrap (schema.py): one GraphMemMigration node per id even when two processes init at once.
CREATE CONSTRAINT graphmem_migration_id IF NOT EXISTS
FOR (n:GraphMemMigration) REQUIRE n.id IS UNIQUE
