// What every search and ingestion needs to know about a space, in one read, never cached:
// its size (BM25's N and average length), its participants, and its logical clock (turns
// ever ingested: the newest turn index each session has seen, or the last forgetting run).
// `unstamped` counts sessions written before sessions kept their clock (migration 103 stamps
// them); while any is left the caller falls back to `space_clock`.
OPTIONAL MATCH (s:Session {space: $space})
WITH count(s) AS sessions, sum(coalesce(s.turn_count, 0)) AS turns,
     sum(coalesce(s.term_total, 0)) AS terms, max(s.last_turn) AS last_turn,
     sum(CASE WHEN s.last_turn IS NULL AND coalesce(s.turn_count, 0) > 0 THEN 1 ELSE 0 END)
       AS unstamped,
     collect(s.speakers) AS speaker_lists
OPTIONAL MATCH (r:ForgetRun {space: $space})
RETURN sessions, turns, terms, last_turn, unstamped, max(r.at_turn) AS last_run,
       reduce(acc = [], names IN speaker_lists |
              acc + [x IN coalesce(names, []) WHERE NOT x IN acc]) AS speakers
