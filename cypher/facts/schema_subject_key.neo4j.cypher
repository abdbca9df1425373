CREATE CONSTRAINT facts_subject_key IF NOT EXISTS
FOR (n:Subject) REQUIRE (n.space, n.id) IS UNIQUE
