CREATE CONSTRAINT experience_action_key IF NOT EXISTS
FOR (n:Action) REQUIRE (n.space, n.id) IS UNIQUE
