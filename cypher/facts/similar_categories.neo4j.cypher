// Vector anchors (§3.2, eq. 5): Category nodes whose name is close to the given one.
// Shared index, oversampled; nearest.py decides whether the candidates held enough.
UNWIND $probes AS probe
CALL db.index.vector.queryNodes('facts_category_embedding', $candidates, probe.embedding)
YIELD node, score
WITH probe, collect(node) AS found, 2 * min(score) - 1 AS floor
RETURN probe.key AS key, size(found) AS seen, floor,
       [h IN [c IN found WHERE c.space = $space |
        {id: c.id,
         similarity: 2 * vector.similarity.cosine(c.embedding, probe.embedding) - 1}]
       WHERE h.similarity >= $min_similarity] AS hits
