// Items under a namespace prefix, newest first (a search without a query).
MATCH (n:StoreItem {space: $space})
WHERE n.ns_path STARTS WITH $prefix
RETURN n.id AS id, n.namespace AS namespace, n.key AS key, n.value_json AS value_json,
       n.created_at AS created_at, n.updated_at AS updated_at
ORDER BY n.updated_at DESC, n.id
