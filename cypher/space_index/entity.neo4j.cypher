// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX entity_space IF NOT EXISTS FOR (n:Entity) ON (n.space)
