CREATE VECTOR INDEX facts_subject_embedding IF NOT EXISTS
FOR (n:Subject) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimension),
                      `vector.similarity_function`: 'cosine'}}
