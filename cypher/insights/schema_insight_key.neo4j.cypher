CREATE CONSTRAINT insights_insight_key IF NOT EXISTS
FOR (n:Insight) REQUIRE (n.space, n.id) IS UNIQUE
