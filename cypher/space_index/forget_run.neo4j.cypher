// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX forget_run_space IF NOT EXISTS FOR (n:ForgetRun) ON (n.space)
