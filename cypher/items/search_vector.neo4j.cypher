// Items nearest a query under a namespace prefix (a hit only where the space's and under the
// prefix).
// Shared index, oversampled (nearest.py): per probe, how many candidates the index gave, the
// lowest index similarity among them, the most the index can hold (the label's count, from
// the count store; OPTIONAL CALL keeps a row for a probe the index gives nothing), how many
// of them are the space's and pass the filters (`own`), and the hits: those candidates with
// the exact cosine (the index's vectors are quantised). The exact cosine reads a candidate's
// stored vector, so it is read only for the first $error_sample of them and for those whose
// index similarity lies within $rerank_margin of the k-th best (nearest.py,
// RERANK_MARGIN); `index_error`, the furthest an index similarity among those lay from its
// exact cosine, lets nearest() see whether the index is as close as the margin assumes.
WITH COUNT { (:StoreItem) } AS indexed
UNWIND $probes AS probe
OPTIONAL CALL db.index.vector.queryNodes('store_item_embedding', $candidates, probe.embedding)
YIELD node AS n, score
WITH probe, indexed, n, score, 2 * score - 1 AS similarity
ORDER BY similarity DESC
WITH probe, indexed, count(n) AS seen, min(similarity) AS floor,
     collect(CASE WHEN n.space = $space AND n.ns_path STARTS WITH $prefix
                  THEN {n: n, score: score, similarity: similarity} END) AS own
WITH probe, indexed, seen, floor, own,
     CASE WHEN size(own) >= $k THEN own[$k - 1].similarity END AS kth
WITH probe, indexed, seen, floor, own,
     [i IN range(0, size(own) - 1) WHERE i < $error_sample
         OR kth IS NULL OR own[i].similarity >= kth - $rerank_margin | own[i]] AS near
WITH probe, indexed, seen, floor, size(own) AS own,
     [m IN near | {m: m, exact: 2 * vector.similarity.cosine(m.n.embedding, probe.embedding) - 1}] AS read
RETURN probe.key AS key, indexed, seen, floor, own,
       reduce(worst = 0.0, r IN read | CASE WHEN abs(r.exact - r.m.similarity) > worst
                                            THEN abs(r.exact - r.m.similarity) ELSE worst END)
         AS index_error,
       [r IN read | {id: r.m.n.id, namespace: r.m.n.namespace, key: r.m.n.key, value_json: r.m.n.value_json,
        created_at: r.m.n.created_at, updated_at: r.m.n.updated_at, similarity: r.exact}] AS hits
