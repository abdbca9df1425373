// The one statement that makes a rewrite visible (§3.3, eq. 9): every status change of an
// update at once (intra-unit supersession and inter-unit outdating), with the SUPERSEDES and
// CONTESTS edges that explain them. A reader sees the memory before or after, never between.
UNWIND $changes AS ch
MATCH (u:MemoryUnit {space: $space, id: ch.id})
SET u.status = ch.status, u.valid_to = ch.valid_to, u.status_changed_at = $now
WITH u, ch.superseded_by AS newer_id, ch.contests AS contested_id
OPTIONAL MATCH (u)<-[stale:SUPERSEDES]-(previous:MemoryUnit)
WHERE newer_id IS NULL OR previous.id <> newer_id
DELETE stale
WITH DISTINCT u, newer_id, contested_id
OPTIONAL MATCH (u)-[stale_claim:CONTESTS]->(claimed:MemoryUnit)
WHERE contested_id IS NULL OR claimed.id <> contested_id
DELETE stale_claim
WITH DISTINCT u, newer_id, contested_id
OPTIONAL MATCH (newer:MemoryUnit {space: $space, id: newer_id})
FOREACH (_ IN CASE WHEN newer IS NULL THEN [] ELSE [1] END | MERGE (newer)-[:SUPERSEDES]->(u))
WITH u, contested_id
OPTIONAL MATCH (target:MemoryUnit {space: $space, id: contested_id})
FOREACH (_ IN CASE WHEN target IS NULL THEN [] ELSE [1] END | MERGE (u)-[:CONTESTS]->(target))
RETURN count(DISTINCT u) AS changed
