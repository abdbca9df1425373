CREATE INDEX FOR (n:Insight) ON (n.space, n.id)
