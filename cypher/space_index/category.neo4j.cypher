// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX category_space IF NOT EXISTS FOR (n:Category) ON (n.space)
