CREATE CONSTRAINT forget_run_key IF NOT EXISTS
FOR (n:ForgetRun) REQUIRE (n.space, n.id) IS UNIQUE
