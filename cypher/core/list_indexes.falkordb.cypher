CALL db.indexes() YIELD label, properties, types, status
RETURN label AS name, types AS type, [label] AS labels, properties, status AS state
ORDER BY name
