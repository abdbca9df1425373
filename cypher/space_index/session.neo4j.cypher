// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX session_space IF NOT EXISTS FOR (n:Session) ON (n.space)
