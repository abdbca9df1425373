// Recomputed, not incremented: safe to repeat after a crash or a re-run.
UNWIND $sessions AS sid
MATCH (s:Session {space: $space, id: sid})
OPTIONAL MATCH (s)-[:HAS_TURN]->(t:Turn)
WITH s, count(t) AS turns, sum(coalesce(t.n_terms, 0)) AS terms
SET s.turn_count = turns, s.term_total = toFloat(terms)  // FalkorDB sums to a float
RETURN count(s) AS written
