// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX context_space IF NOT EXISTS FOR (n:Context) ON (n.space)
