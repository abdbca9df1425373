MATCH (n:Entity {space: $space})
OPTIONAL MATCH (n)-[r]-()
WITH n, count(r) AS degree
RETURN n.id AS id, coalesce(n.created_turn, 0) AS created_turn,
       CASE WHEN coalesce(n.last_access_turn, 0) > coalesce(n.last_turn, 0)
            THEN n.last_access_turn ELSE coalesce(n.last_turn, n.created_turn, 0) END
         AS last_turn,
       coalesce(n.access_count, 0) AS access_count, degree
