CREATE INDEX FOR (n:InteractionStep) ON (n.space, n.id)
