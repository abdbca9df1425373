// BM25 over the full-text index, one index lookup per query term: the index finds the turns
// holding a term (stemmed), document frequency and length normalisation are computed here,
// so both engines rank the same way (Robertson & Zaragoza's BM25 with binary term frequency).
// `turn_stems` indexes Turn.stems, the entries FalkorDB's index makes of the text (fulltext.py),
// and each lookup is the term or its stem, as FalkorDB looks it up: both find the same turns.
UNWIND $lookups AS term
CALL db.index.fulltext.queryNodes('turn_stems', term) YIELD node
WITH term, node
WHERE node.space = $space
WITH term, collect(node) AS nodes
WITH term, nodes, log(1.0 + ($turns - size(nodes) + 0.5) / (size(nodes) + 0.5)) AS idf
UNWIND nodes AS t
// With binary term frequency a turn's score is its length factor times the sum of its
// matched terms' idf, so the factor is computed once per turn, not once per posting
// (p50 39 -> 21 ms at 100k turns on FalkorDB, docs/performance.md).
WITH t, sum(idf) AS weight
WITH t, weight * ($k1 + 1) / (1 + $k1 * (1 - $b + $b * coalesce(t.n_terms, 1) / $avg_terms))
     AS score
ORDER BY score DESC, t.id
LIMIT $candidates
RETURN t.id AS id, t.session AS session, t.seq AS seq, t.speaker AS speaker, t.text AS text,
       t.time AS time, score
