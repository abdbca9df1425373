CREATE CONSTRAINT insights_step_key IF NOT EXISTS
FOR (n:InteractionStep) REQUIRE (n.space, n.id) IS UNIQUE
