CREATE CONSTRAINT store_item_key IF NOT EXISTS
FOR (n:StoreItem) REQUIRE (n.space, n.id) IS UNIQUE
