CREATE VECTOR INDEX FOR (n:Task) ON (n.embedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine', efRuntime: 200}
