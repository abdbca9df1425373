// Dense search: the space's turns among the shared index's candidates (nearest.py).
// Shared index, oversampled (nearest.py): per probe, how many candidates the index gave, the
// lowest index similarity among them, and the hits (the space's, with the exact cosine: the
// index's vectors are quantised).
UNWIND $probes AS probe
CALL db.index.vector.queryNodes('turn_embedding', $candidates, probe.embedding)
YIELD node AS t, score
RETURN probe.key AS key, count(*) AS seen, min(2 * score - 1) AS floor,
       collect(CASE WHEN t.space = $space
                    THEN {id: t.id, session: t.session, seq: t.seq, speaker: t.speaker, text: t.text,
                          time: t.time,
                          similarity: 2 * vector.similarity.cosine(t.embedding, probe.embedding) - 1} END) AS hits
