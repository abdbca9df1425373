CREATE CONSTRAINT experience_trajectory_key IF NOT EXISTS
FOR (n:Trajectory) REQUIRE (n.space, n.id) IS UNIQUE
