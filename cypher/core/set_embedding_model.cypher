// The graph's embedding model, once every stored vector is from it (`graphmem reembed`).
MATCH (m:GraphMemMeta {id: 'schema'})
SET m.embedding_model = $embedding_model, m.embedding_dimension = $embedding_dimension,
    m.reembedded_at = $now
RETURN m.embedding_model AS embedding_model
