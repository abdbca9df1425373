CREATE VECTOR INDEX insights_query_embedding IF NOT EXISTS
FOR (n:Query) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimension),
                      `vector.similarity_function`: 'cosine'}}
