// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX query_space IF NOT EXISTS FOR (n:Query) ON (n.space)
