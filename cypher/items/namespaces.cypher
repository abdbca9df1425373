MATCH (n:StoreItem {space: $space})
RETURN DISTINCT n.namespace AS namespace
