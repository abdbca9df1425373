MERGE (m:GraphMemMigration {id: $id})
ON CREATE SET m.name = $name, m.applied_at = $now
RETURN m.id AS id
