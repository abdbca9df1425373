CREATE VECTOR INDEX FOR (n:Entity) ON (n.embedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine', efRuntime: 200}
