// For superseded units, the newer units that re-assert the same value (a SUPERSEDES chain along
// which the object never changes) and are still current: a unit that depends on the old one is
// supported by these too (§3.3: dependencies carry over only when the evidence still holds).
UNWIND $ids AS unit_id
MATCH p = (head:MemoryUnit)-[:SUPERSEDES*1..8]->(u:MemoryUnit {space: $space, id: unit_id})
WHERE head.status IN ['active', 'outdated']
  AND all(n IN nodes(p) WHERE n.object_key = u.object_key)
RETURN u.id AS id, head.id AS head
