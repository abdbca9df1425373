MATCH (m:GraphMemMigration)
RETURN m.id AS id, m.name AS name, m.applied_at AS applied_at
ORDER BY id
