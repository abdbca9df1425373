CREATE INDEX FOR (n:Entity) ON (n.name_key)
