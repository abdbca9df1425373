CREATE INDEX FOR (n:Context) ON (n.space, n.id)
