CREATE VECTOR INDEX store_item_embedding IF NOT EXISTS
FOR (n:StoreItem) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimension),
                       `vector.similarity_function`: 'cosine'}}
