// Dense search: the space's turns among the shared index's candidates (nearest.py).
// Shared index, oversampled: a row per candidate, a hit only where the space's (nearest.py).
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('Turn', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node AS t, score
RETURN probe.key AS key, 1 - score AS similarity,
       CASE WHEN t.space = $space
            THEN {id: t.id, session: t.session, seq: t.seq, speaker: t.speaker, text: t.text, time: t.time, similarity: 1 - score} END AS hit
