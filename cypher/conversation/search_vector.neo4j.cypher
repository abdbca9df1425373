// Dense search: the space's turns among the shared index's candidates (nearest.py).
// Shared index, oversampled; nearest.py decides whether the candidates held enough.
UNWIND $probes AS probe
CALL db.index.vector.queryNodes('turn_embedding', $candidates, probe.embedding)
YIELD node, score
WITH probe, collect(node) AS found, 2 * min(score) - 1 AS floor
RETURN probe.key AS key, size(found) AS seen, floor,
       [t IN found WHERE t.space = $space |
        {id: t.id, session: t.session, seq: t.seq, speaker: t.speaker, text: t.text, time: t.time,
         similarity: 2 * vector.similarity.cosine(t.embedding, probe.embedding) - 1}] AS hits
