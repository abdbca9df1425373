// What rests on a unit: chains of dependents, up to 8 hops downstream.
MATCH p = (u:MemoryUnit {space: $space, id: $id})-[:SUPPORTS*1..8]->(:MemoryUnit)
RETURN [n IN nodes(p) | n {.*, embedding: null}] AS units,
       [r IN relationships(p) | [startNode(r).id, endNode(r).id]] AS edges
LIMIT $limit
