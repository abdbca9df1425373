// Dense search: the space's turns among the shared index's candidates (nearest.py).
// Shared index, oversampled: a row per candidate, a hit only where the space's (nearest.py).
UNWIND $probes AS probe
CALL db.index.vector.queryNodes('turn_embedding', $candidates, probe.embedding)
YIELD node AS t, score
RETURN probe.key AS key, 2 * score - 1 AS similarity,
       CASE WHEN t.space = $space
            THEN {id: t.id, session: t.session, seq: t.seq, speaker: t.speaker, text: t.text, time: t.time,
                  similarity: 2 * vector.similarity.cosine(t.embedding, probe.embedding) - 1} END AS hit
