// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX subject_space IF NOT EXISTS FOR (n:Subject) ON (n.space)
