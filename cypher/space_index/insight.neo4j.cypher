// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX insight_space IF NOT EXISTS FOR (n:Insight) ON (n.space)
