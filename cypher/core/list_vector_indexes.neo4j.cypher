SHOW INDEXES YIELD name, type, labelsOrTypes, properties
WHERE type = 'VECTOR'
RETURN name, labelsOrTypes AS labels, properties
ORDER BY name
