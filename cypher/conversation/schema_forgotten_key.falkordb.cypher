CREATE INDEX FOR (n:Forgotten) ON (n.space, n.id)
