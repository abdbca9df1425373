CREATE CONSTRAINT entity_key IF NOT EXISTS
FOR (n:Entity) REQUIRE (n.space, n.id) IS UNIQUE
