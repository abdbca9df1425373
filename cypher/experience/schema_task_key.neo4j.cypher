CREATE CONSTRAINT experience_task_key IF NOT EXISTS
FOR (n:Task) REQUIRE (n.space, n.id) IS UNIQUE
