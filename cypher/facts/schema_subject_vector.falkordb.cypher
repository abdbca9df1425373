CREATE VECTOR INDEX FOR (n:Subject) ON (n.embedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine', efRuntime: 200}
