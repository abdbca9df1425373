CREATE CONSTRAINT facts_context_key IF NOT EXISTS
FOR (n:Context) REQUIRE (n.space, n.id) IS UNIQUE
