// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX forgotten_space IF NOT EXISTS FOR (n:Forgotten) ON (n.space)
