// Inter-unit rewriting (§3.3, eq. 10): the current units that depend on the given ones, each
// with every unit that supports it and that unit's status.
UNWIND $ids AS changed_id
MATCH (c:MemoryUnit {space: $space, id: changed_id})-[:SUPPORTS]->(u:MemoryUnit)
WHERE u.status IN ['active', 'outdated']
WITH DISTINCT u
MATCH (sup:MemoryUnit)-[:SUPPORTS]->(u)
WITH u, collect({id: sup.id, status: sup.status, valid_to: sup.valid_to}) AS supporters
RETURN u {.*, embedding: null} AS unit, supporters
