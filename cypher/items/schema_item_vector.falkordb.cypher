CREATE VECTOR INDEX FOR (n:StoreItem) ON (n.embedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine', efRuntime: 200}
