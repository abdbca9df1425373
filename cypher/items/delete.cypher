UNWIND $ids AS id
MATCH (n:StoreItem {space: $space, id: id})
DELETE n
RETURN count(*) AS deleted
