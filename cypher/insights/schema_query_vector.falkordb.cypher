CREATE VECTOR INDEX FOR (n:Query) ON (n.embedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine', efRuntime: 200}
