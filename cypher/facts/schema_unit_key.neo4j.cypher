CREATE CONSTRAINT facts_memory_unit_key IF NOT EXISTS
FOR (n:MemoryUnit) REQUIRE (n.space, n.id) IS UNIQUE
