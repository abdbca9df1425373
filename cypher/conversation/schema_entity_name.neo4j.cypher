CREATE INDEX entity_name_key IF NOT EXISTS FOR (n:Entity) ON (n.space, n.name_key)
