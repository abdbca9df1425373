// After upsert_matches: an exploration keeps only its comparison with its current expert.
UNWIND $rows AS row
MATCH (a:Trajectory {space: $space, id: row.exploration})-[m:MATCHED_TO]->(b:Trajectory)
WHERE b.space = $space AND b.id <> row.expert
DELETE m
RETURN count(*) AS pruned
