CREATE VECTOR INDEX facts_memory_unit_embedding IF NOT EXISTS
FOR (n:MemoryUnit) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimension),
                      `vector.similarity_function`: 'cosine'}}
