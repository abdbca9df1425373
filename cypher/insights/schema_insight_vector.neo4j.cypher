CREATE VECTOR INDEX insights_insight_embedding IF NOT EXISTS
FOR (n:Insight) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimension),
                      `vector.similarity_function`: 'cosine'}}
