// What importance is computed from (paper Fig. 1, retention stage): recency, access
// frequency, degree centrality and age, with time counted in the space's turns. Accesses are
// counted on the HAS_TURN link (touch_turns); turns never touched since carry them themselves.
MATCH (n:Turn {space: $space})
OPTIONAL MATCH (n)-[r]-()
WITH n, count(r) AS degree
OPTIONAL MATCH (:Session {space: $space})-[h:HAS_TURN]->(n)
RETURN n.id AS id, coalesce(n.created_turn, 0) AS created_turn,
       coalesce(h.last_access_turn, n.last_access_turn, n.created_turn, 0) AS last_turn,
       coalesce(h.access_count, n.access_count, 0) AS access_count, degree
