// Candidate evidence paths (§3.2, before eq. 8): from each seed, connected chains of active
// units of the support subgraph ($scope) along dependency edges in either direction, at most
// $h hops (h <= 3); up to $kp paths, seeds in the order given, shorter paths first.
UNWIND range(0, size($seeds) - 1) AS rank
WITH rank, $seeds[rank] AS seed
MATCH p = (a:MemoryUnit {space: $space, id: seed})-[:SUPPORTS*0..3]-(b:MemoryUnit)
WITH rank, p, length(p) AS hops
WHERE hops <= $h AND all(n IN nodes(p) WHERE n.status = 'active' AND n.id IN $scope)
RETURN rank, hops, [n IN nodes(p) | n.id] AS units,
       [r IN relationships(p) | [startNode(r).id, endNode(r).id]] AS edges
ORDER BY rank, hops
LIMIT $kp
