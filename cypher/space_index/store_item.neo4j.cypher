// Queries over a whole space (exact scans, counts, exports) seek this index.
CREATE INDEX store_item_space IF NOT EXISTS FOR (n:StoreItem) ON (n.space)
