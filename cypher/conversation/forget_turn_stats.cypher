// What importance is computed from (paper Fig. 1, retention stage): recency, access
// frequency, degree centrality and age, with time counted in the space's turns.
MATCH (n:Turn {space: $space})
OPTIONAL MATCH (n)-[r]-()
WITH n, count(r) AS degree
RETURN n.id AS id, coalesce(n.created_turn, 0) AS created_turn,
       coalesce(n.last_access_turn, n.created_turn, 0) AS last_turn,
       coalesce(n.access_count, 0) AS access_count, degree
