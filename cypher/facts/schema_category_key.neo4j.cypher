CREATE CONSTRAINT facts_category_key IF NOT EXISTS
FOR (n:Category) REQUIRE (n.space, n.id) IS UNIQUE
