// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX turn_space IF NOT EXISTS FOR (n:Turn) ON (n.space)
