// Vector anchors (§3.2, eq. 5): Category nodes whose name is close to the given one.
// Shared index, oversampled; nearest.py decides whether the candidates held enough.
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('Category', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node, score
WITH probe, collect(node) AS found, 1 - max(score) AS floor
RETURN probe.key AS key, size(found) AS seen, floor,
       [h IN [c IN found WHERE c.space = $space |
        {id: c.id,
         similarity: 1 - vec.cosineDistance(c.embedding, vecf32(probe.embedding))}]
       WHERE h.similarity >= $min_similarity] AS hits
