// Dense search: the space's turns among the shared index's candidates (nearest.py).
// Exact scan of the space (nearest.py, when the shared index held too few of it).
UNWIND $probes AS probe
WITH probe.key AS key, vecf32(probe.embedding) AS probe_vector
MATCH (t:Turn {space: $space})
WHERE t.embedding IS NOT NULL
WITH key, t, 1 - vec.cosineDistance(t.embedding, probe_vector) AS similarity
ORDER BY similarity DESC, t.id
WITH key, collect({id: t.id, session: t.session, seq: t.seq, speaker: t.speaker, text: t.text, time: t.time, similarity: similarity})[..$k] AS hits
RETURN key, hits
