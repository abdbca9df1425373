// EvoGraph-Mem §3.3 over the query set of eq. 3-4 ($query_ids: the seeds and the neighbours
// that joined them, seed_neighbours.cypher).
MATCH (q:Query)
WHERE q.space = $space AND q.id IN $query_ids
WITH collect(DISTINCT q) AS qs
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
