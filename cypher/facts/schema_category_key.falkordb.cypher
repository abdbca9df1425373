CREATE INDEX FOR (n:Category) ON (n.space, n.id)
