// graphmem_neo4j.ogm (neomodel, Neo4j only): a script's edit of the few properties a person
// may change on one node; the layer services own every other property. The node is the one
// neomodel loaded (its element id), and must still belong to $space.
MATCH (n)
WHERE elementId(n) = $element_id AND n.space = $space
SET n += $props
RETURN count(n) AS updated
