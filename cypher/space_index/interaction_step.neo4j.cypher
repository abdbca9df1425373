// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX interaction_step_space IF NOT EXISTS FOR (n:InteractionStep) ON (n.space)
