// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX insight_edit_space IF NOT EXISTS FOR (n:InsightEdit) ON (n.space)
