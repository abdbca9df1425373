CREATE CONSTRAINT insights_edit_key IF NOT EXISTS
FOR (n:InsightEdit) REQUIRE (n.space, n.id) IS UNIQUE
