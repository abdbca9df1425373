CREATE VECTOR INDEX FOR (n:Category) ON (n.embedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine', efRuntime: 200}
