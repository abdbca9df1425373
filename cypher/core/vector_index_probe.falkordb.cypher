// How many nodes one label's vector index gives when asked for $candidates near a fixed probe:
// an index holding orphaned vectors (falkordb_vectors.py) drops them from its answer.
CALL db.idx.vector.queryNodes($label, 'embedding', $candidates, vecf32($probe))
YIELD node
RETURN count(node) AS answered
