// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX space_space IF NOT EXISTS FOR (n:Space) ON (n.space)
