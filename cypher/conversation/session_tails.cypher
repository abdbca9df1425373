// The last stored turn of each session: where appended turns continue the NEXT chain.
UNWIND $sessions AS sid
MATCH (s:Session {space: $space, id: sid})-[:HAS_TURN]->(t:Turn)
WITH sid, t
ORDER BY t.seq DESC
WITH sid, collect(t)[0] AS last
RETURN sid AS session, last.id AS last_id, last.seq AS last_seq, last.speaker AS last_speaker,
       last.text AS last_text
