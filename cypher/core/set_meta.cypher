MERGE (m:GraphMemMeta {id: 'schema'})
ON CREATE SET m.embedding_model = $embedding_model,
              m.embedding_dimension = $embedding_dimension,
              m.created_at = $now
RETURN m.embedding_model AS embedding_model, m.embedding_dimension AS embedding_dimension
