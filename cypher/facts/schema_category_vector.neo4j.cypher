CREATE VECTOR INDEX facts_category_embedding IF NOT EXISTS
FOR (n:Category) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimension),
                      `vector.similarity_function`: 'cosine'}}
