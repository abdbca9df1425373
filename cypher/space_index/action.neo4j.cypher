// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX action_space IF NOT EXISTS FOR (n:Action) ON (n.space)
