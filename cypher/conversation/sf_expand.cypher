// Two-hop expansion over RELATES from the roots (paper: 2 hops, node cap 15). Each hop keeps
// at most $fanout neighbours per node, the best-connected first, so a hub cannot flood it.
UNWIND $roots AS rid
MATCH (root:Entity {space: $space, id: rid})
OPTIONAL MATCH (root)-[:RELATES]-(n1:Entity)
WITH root, n1
ORDER BY coalesce(n1.mention_count, 0) DESC
WITH root, collect(DISTINCT n1)[..$fanout] AS first
UNWIND (CASE WHEN size(first) = 0 THEN [null] ELSE first END) AS n1
OPTIONAL MATCH (n1)-[:RELATES]-(n2:Entity)
WHERE n2 <> root
WITH root, first, n1, n2
ORDER BY coalesce(n2.mention_count, 0) DESC
WITH root, first, n1, collect(DISTINCT n2)[..$fanout] AS second
WITH root, first, collect(second) AS seconds
WITH [{node: root, hop: 0}] + [n IN first | {node: n, hop: 1}] +
     reduce(acc = [], s IN seconds | acc + [n IN s | {node: n, hop: 2}]) AS reached
UNWIND reached AS r
WITH r.node AS n, min(r.hop) AS hop
RETURN n.id AS id, n.name AS name, n.type AS type, hop,
       coalesce(n.mention_count, 0) AS mentions
ORDER BY hop, mentions DESC, id
