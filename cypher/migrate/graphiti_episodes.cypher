// Graphiti episodes (node_db_queries: Episodic with uuid, name, group_id, source,
// source_description, content, valid_at, created_at), with the saga holding each, if any.
MATCH (e:Episodic)
WHERE $group_id IS NULL OR e.group_id = $group_id
OPTIONAL MATCH (s:Saga)-[:HAS_EPISODE]->(e)
WITH e, collect(s.name) AS sagas
RETURN elementId(e) AS element_id, e.uuid AS uuid, e.name AS name, e.group_id AS group_id,
       e.content AS content, e.source AS source, e.source_description AS source_description,
       e.valid_at AS valid_at, e.created_at AS created_at, head(sagas) AS saga
ORDER BY element_id
