UNWIND $ids AS id
MATCH (n:StoreItem {space: $space, id: id})
RETURN n.id AS id, n.namespace AS namespace, n.key AS key, n.value_json AS value_json,
       n.created_at AS created_at, n.updated_at AS updated_at
