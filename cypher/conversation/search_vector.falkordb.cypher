// The index is shared by every space: $candidates is oversampled, the space filter follows.
CALL db.idx.vector.queryNodes('Turn', 'embedding', $candidates, vecf32($embedding))
YIELD node, score
WITH node AS t, 1 - score AS score
WHERE t.space = $space
WITH t, score
ORDER BY score DESC, t.id
LIMIT $limit
RETURN t.id AS id, t.session AS session, t.seq AS seq, t.speaker AS speaker, t.text AS text,
       t.time AS time, score
