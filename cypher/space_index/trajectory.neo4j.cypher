// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX trajectory_space IF NOT EXISTS FOR (n:Trajectory) ON (n.space)
