// One statement, so the dump is one consistent read even while writers run.
MATCH (n)
WHERE n.space = $space
OPTIONAL MATCH (n)-[r]->(m)
WHERE m.space = $space
WITH n, collect(CASE WHEN r IS NULL THEN null
                     ELSE {type: type(r), target: m.id, target_label: labels(m)[0],
                           props: properties(r)} END) AS rels
RETURN labels(n)[0] AS label, properties(n) AS props, rels
ORDER BY label, props.id
