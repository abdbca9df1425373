// De-duplication by embedding (paper: cosine ≥ τ_dedup): stored entities close to each new name.
// Shared index, oversampled; nearest.py decides whether the candidates held enough.
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('Entity', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node, score
WITH probe, collect(node) AS found, 1 - max(score) AS floor
RETURN probe.key AS key, size(found) AS seen, floor,
       [h IN [e IN found WHERE e.space = $space |
        {id: e.id, name: e.name,
         similarity: 1 - vec.cosineDistance(e.embedding, vecf32(probe.embedding))}]
       WHERE h.similarity >= $min_similarity] AS hits
