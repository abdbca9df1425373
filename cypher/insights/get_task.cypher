MATCH (q:Query {space: $space, id: $id})
RETURN q.id AS id, q.text AS query, q.status AS status, q.answer AS answer,
       q.feedback AS feedback, q.content_hash AS content_hash, q.created_at AS created_at,
       q.recorded_at AS recorded_at, q.feedback_at AS feedback_at, q.plan_json AS plan_json,
       q.task_key AS task_key, q.task_type AS task_type
