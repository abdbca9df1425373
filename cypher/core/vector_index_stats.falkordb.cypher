// Every vector index on `embedding`: its label, dimension, how many nodes it holds and whether
// it is built (falkordb_vectors.py checks each one's answers and rebuilds one that answers short).
CALL db.indexes() YIELD label, types, options, info, status
WHERE 'VECTOR' IN types.embedding
RETURN label, options.embedding.dimension AS dimension, info.numDocuments AS documents,
       status = 'OPERATIONAL' AS built
ORDER BY label
