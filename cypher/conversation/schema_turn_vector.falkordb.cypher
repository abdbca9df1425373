CREATE VECTOR INDEX FOR (n:Turn) ON (n.embedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine', efRuntime: 200}
