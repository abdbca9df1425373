CREATE VECTOR INDEX FOR (n:MemoryUnit) ON (n.embedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine', efRuntime: 200}
