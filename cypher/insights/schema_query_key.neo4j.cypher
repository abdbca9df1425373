CREATE CONSTRAINT insights_query_key IF NOT EXISTS
FOR (n:Query) REQUIRE (n.space, n.id) IS UNIQUE
