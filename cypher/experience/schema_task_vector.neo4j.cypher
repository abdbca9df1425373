CREATE VECTOR INDEX experience_task_embedding IF NOT EXISTS
FOR (n:Task) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimension),
                      `vector.similarity_function`: 'cosine'}}
