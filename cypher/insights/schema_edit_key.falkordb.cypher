CREATE INDEX FOR (n:InsightEdit) ON (n.space, n.id)
