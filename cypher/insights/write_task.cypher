// A recorded task, invisible to retrieval until complete_task gives it an embedding; the
// insights retrieved for it are stored with it, in the same statement.
MERGE (q:Query {space: $space, id: $id})
ON CREATE SET q.text = $query, q.status = $status, q.answer = $answer, q.feedback = $feedback,
              q.content_hash = $content_hash, q.task_key = $task_key, q.task_type = $task_type,
              q.created_at = $now, q.step_count = $step_count,
              q.retrieval_k = $k, q.retrieval_b = $b, q.retrieval_lambda = $lambda
WITH q
UNWIND $retrieved AS row
MATCH (i:Insight {space: $space, id: row.id})
MERGE (q)-[r:RETRIEVED]->(i)
ON CREATE SET r.rank = row.rank, r.score = row.score, r.positive = row.positive,
              r.negative = row.negative
RETURN count(r) AS retrieved
