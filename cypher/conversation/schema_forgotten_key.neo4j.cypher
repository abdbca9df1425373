CREATE CONSTRAINT forgotten_key IF NOT EXISTS
FOR (n:Forgotten) REQUIRE (n.space, n.id) IS UNIQUE
