CREATE VECTOR INDEX FOR (n:Insight) ON (n.embedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine', efRuntime: 200}
