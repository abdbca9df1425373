// The revision chain through an insight (eq. 14-15): what it was revised from, nearest first,
// and what was revised from it.
MATCH (i:Insight {space: $space, id: $id})
OPTIONAL MATCH back = (i)-[:REVISED_FROM*1..100]->(a:Insight)
WITH i, a, length(back) AS hops
ORDER BY hops
WITH i, collect(a.id) AS ancestors
OPTIONAL MATCH forward = (d:Insight)-[:REVISED_FROM*1..100]->(i)
WITH ancestors, d, length(forward) AS hops
ORDER BY hops
RETURN ancestors, collect(d.id) AS successors
