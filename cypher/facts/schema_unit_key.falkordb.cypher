CREATE INDEX FOR (n:MemoryUnit) ON (n.space, n.id)
