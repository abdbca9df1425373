CREATE VECTOR INDEX turn_embedding IF NOT EXISTS
FOR (n:Turn) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimension),
                       `vector.similarity_function`: 'cosine'}}
