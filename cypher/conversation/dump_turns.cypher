// Everything needed to bring a pruned Turn back: its properties and every incident edge.
UNWIND $ids AS id
MATCH (n:Turn {space: $space, id: id})
OPTIONAL MATCH (n)-[o]->(m)
WITH n, collect(CASE WHEN o IS NULL THEN null ELSE
        {type: type(o), outgoing: true, other: m.id, other_label: labels(m)[0],
         props: properties(o)} END) AS outgoing
OPTIONAL MATCH (n)<-[i]-(m2)
WITH n, outgoing, collect(CASE WHEN i IS NULL THEN null ELSE
        {type: type(i), outgoing: false, other: m2.id, other_label: labels(m2)[0],
         props: properties(i)} END) AS incoming
RETURN n.id AS id, properties(n) AS props, outgoing + incoming AS edges
