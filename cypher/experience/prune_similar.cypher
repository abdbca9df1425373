// After upsert_similar: a task's outgoing edges are exactly its current neighbours.
UNWIND $rows AS row
MATCH (a:Task {space: $space, id: row.id})-[s:SIMILAR_TASK]->(b:Task)
WHERE b.space = $space AND NOT b.id IN row.keep
DELETE s
RETURN count(*) AS pruned
