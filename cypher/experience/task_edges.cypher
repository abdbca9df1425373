// §4.3: the cross-task edges around the top-K tasks, both directions.
UNWIND $ids AS task_id
MATCH (a:Task {space: $space, id: task_id})-[s:SIMILAR_TASK]->(b:Task)
WHERE b.space = $space
RETURN a.id AS source, b.id AS target, a.text AS source_text, b.text AS target_text,
       s.similarity AS similarity, s.insight AS insight, s.workflow AS workflow
UNION
UNWIND $ids AS task_id
MATCH (a:Task)-[s:SIMILAR_TASK]->(b:Task {space: $space, id: task_id})
WHERE a.space = $space
RETURN a.id AS source, b.id AS target, a.text AS source_text, b.text AS target_text,
       s.similarity AS similarity, s.insight AS insight, s.workflow AS workflow
