// Exact cosine over one space: used when the space is small enough to scan.
MATCH (t:Turn {space: $space})
WHERE t.embedding IS NOT NULL
WITH t, 1 - vec.cosineDistance(t.embedding, vecf32($embedding)) AS score
ORDER BY score DESC, t.id
LIMIT $limit
RETURN t.id AS id, t.session AS session, t.seq AS seq, t.speaker AS speaker, t.text AS text,
       t.time AS time, score
