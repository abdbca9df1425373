// Dense search: the space's turns among the shared index's candidates (nearest.py).
// Shared index, oversampled; nearest.py decides whether the candidates held enough.
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('Turn', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node, score
WITH probe, collect(node) AS found, 1 - max(score) AS floor
RETURN probe.key AS key, size(found) AS seen, floor,
       [t IN found WHERE t.space = $space |
        {id: t.id, session: t.session, seq: t.seq, speaker: t.speaker, text: t.text, time: t.time,
         similarity: 1 - vec.cosineDistance(t.embedding, vecf32(probe.embedding))}] AS hits
