MATCH (s:Session {space: $space})
RETURN count(s) AS sessions, sum(coalesce(s.turn_count, 0)) AS turns,
       sum(coalesce(s.term_total, 0)) AS terms
