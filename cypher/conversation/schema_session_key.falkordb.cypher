CREATE INDEX FOR (n:Session) ON (n.space, n.id)
