MATCH (m:GraphMemMeta {id: 'schema'})
RETURN m.embedding_model AS embedding_model,
       m.embedding_dimension AS embedding_dimension,
       m.created_at AS created_at
