// What rests on a unit: chains of dependents, up to 8 hops downstream.
MATCH p = (u:MemoryUnit {space: $space, id: $id})-[:SUPPORTS*1..8]->(:MemoryUnit)
RETURN [n IN nodes(p) | n {.id, .subject, .relation, .object, .category, .context, .status, .confidence, .valid_from, .valid_to, .recorded_at, .source, .text, .subject_key, .relation_key, .object_key, .category_key, .context_key}] AS units,
       [r IN relationships(p) | [startNode(r).id, endNode(r).id]] AS edges
LIMIT $limit
