// EvoGraph-Mem §3.3. eq. 3-4: the seed queries (eq. 2) plus their query-graph neighbours;
// a neighbour joins only when it is itself close: of the query's task structure ($task_key).
MATCH (seed:Query)
WHERE seed.space = $space AND seed.id IN $seed_ids
OPTIONAL MATCH (seed)-[:SIMILAR_QUERY]-(near:Query)
WHERE near.space = $space AND NOT near.id IN $exclude
  AND ($task_key IS NULL OR coalesce(near.task_key, $task_key) = $task_key)
WITH collect(DISTINCT seed) + collect(DISTINCT near) AS found
UNWIND found AS member
WITH collect(DISTINCT member) AS qs
// eq. 7: active insights with positive evidence inside the set; eq. 9: s counts it
UNWIND qs AS q
MATCH (i:Insight)-[:POSITIVE]->(q)
WHERE i.space = $space AND i.active = true
WITH qs, i, count(DISTINCT q) AS s
// eq. 9: c counts negative evidence inside the set
OPTIONAL MATCH (i)-[:NEGATIVE]->(conflict:Query)
WHERE conflict IN qs
WITH qs, i, s, count(DISTINCT conflict) AS c
// eq. 8 and the top-B of eq. 10
RETURN i.id AS id, i.text AS text, s - $lambda * c AS score, s AS positive, c AS negative,
       size(qs) AS query_set
ORDER BY score DESC, positive DESC, id
LIMIT $b
