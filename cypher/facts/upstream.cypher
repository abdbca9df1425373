// What a unit rests on: chains of supporters, up to 8 hops upstream.
MATCH p = (:MemoryUnit)-[:SUPPORTS*1..8]->(u:MemoryUnit {space: $space, id: $id})
RETURN [n IN nodes(p) | n {.*, embedding: null}] AS units,
       [r IN relationships(p) | [startNode(r).id, endNode(r).id]] AS edges
LIMIT $limit
