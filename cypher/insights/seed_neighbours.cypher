// EvoGraph-Mem §3.3, eq. 3-4: the seed queries' neighbours on the query graph (similarity
// edges count both ways) that are of the query's task structure ($task_key), each with its
// seed and the cosine its edge was drawn with. OPTIONAL MATCH keeps both engines' plans
// starting from the seeds (a plain MATCH let FalkorDB start from every Query).
MATCH (seed:Query)
WHERE seed.space = $space AND seed.id IN $seed_ids
OPTIONAL MATCH (seed)-[edge:SIMILAR_QUERY]-(near:Query)
WHERE near.space = $space AND NOT near.id IN $exclude
  AND ($task_key IS NULL OR coalesce(near.task_key, $task_key) = $task_key)
WITH seed, edge, near
WHERE near IS NOT NULL
RETURN seed.id AS seed, near.id AS near, edge.similarity AS similarity
ORDER BY seed, near
