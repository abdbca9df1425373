UNWIND $ids AS id
MATCH (t:Turn {space: $space, id: id})
RETURN t.id AS id, t.session AS session, t.seq AS seq, t.speaker AS speaker, t.text AS text,
       t.time AS time
