CALL db.constraints() YIELD type, label, properties, status
RETURN label AS name, type, label, properties
ORDER BY label
