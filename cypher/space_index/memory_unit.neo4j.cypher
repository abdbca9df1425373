// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX memory_unit_space IF NOT EXISTS FOR (n:MemoryUnit) ON (n.space)
