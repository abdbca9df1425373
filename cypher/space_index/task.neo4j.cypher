// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX task_space IF NOT EXISTS FOR (n:Task) ON (n.space)
