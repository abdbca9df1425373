MATCH (s:Session {space: $space})
UNWIND s.speakers AS speaker
RETURN DISTINCT speaker
