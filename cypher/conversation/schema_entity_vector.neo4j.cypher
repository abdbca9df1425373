CREATE VECTOR INDEX entity_embedding IF NOT EXISTS
FOR (n:Entity) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimension),
                       `vector.similarity_function`: 'cosine'}}
