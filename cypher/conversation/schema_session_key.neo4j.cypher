CREATE CONSTRAINT session_key IF NOT EXISTS
FOR (n:Session) REQUIRE (n.space, n.id) IS UNIQUE
