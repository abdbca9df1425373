// Every version (any status) of the slots being rewritten (§3.3): units with the subject and
// relation of a slot, and its context unless $any_context (the relation-level baseline ignores
// it). Each comes with its supporters' statuses and the edges that explain its own status.
UNWIND $keys AS k
MATCH (s:Subject {space: $space, id: k.subject})-[:SUBJECT_OF]->(u:MemoryUnit)
WHERE u.relation_key = k.relation
  AND ($any_context OR coalesce(u.context_key, '') = coalesce(k.context, ''))
OPTIONAL MATCH (sup:MemoryUnit)-[:SUPPORTS]->(u)
WITH k, u, collect(CASE WHEN sup IS NULL THEN null
                        ELSE {id: sup.id, status: sup.status, valid_to: sup.valid_to} END) AS supporters
OPTIONAL MATCH (newer:MemoryUnit)-[:SUPERSEDES]->(u)
WITH k, u, supporters, collect(newer.id) AS superseded_by
OPTIONAL MATCH (u)-[:CONTESTS]->(contested:MemoryUnit)
WITH k, u, supporters, superseded_by, collect(contested.id) AS contests
RETURN k.index AS key_index, u {.*, embedding: null} AS unit,
       supporters, superseded_by, contests
