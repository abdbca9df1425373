CREATE INDEX FOR (n:Trajectory) ON (n.space, n.id)
