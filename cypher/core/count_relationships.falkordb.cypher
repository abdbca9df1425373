MATCH (a)-[r]->()
WHERE a.space = $space
RETURN type(r) AS type, count(*) AS count
ORDER BY type
