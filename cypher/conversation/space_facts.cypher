// What every search and ingestion needs to know about a space, in one read, never cached:
// its size (BM25's N and average length), its participants, and its logical clock (turns
// ever ingested: the newest turn index each session has seen, or the last forgetting run).
// `unstamped` counts sessions written before sessions kept their clock (migration 103 stamps
// them); while any is left the caller falls back to `space_clock`. The participants are kept
// on the Space node (conversation/upsert_sessions): gathering them from every session took
// 11 of this read's 13 ms at 5,000 sessions. Null `speakers` (a space from before migration
// 104) sends the caller to `space_speakers`.
OPTIONAL MATCH (s:Session {space: $space})
WITH count(s) AS sessions, sum(coalesce(s.turn_count, 0)) AS turns,
     sum(coalesce(s.term_total, 0)) AS terms, max(s.last_turn) AS last_turn,
     sum(CASE WHEN s.last_turn IS NULL AND coalesce(s.turn_count, 0) > 0 THEN 1 ELSE 0 END)
       AS unstamped
OPTIONAL MATCH (r:ForgetRun {space: $space})
WITH sessions, turns, terms, last_turn, unstamped, max(r.at_turn) AS last_run
OPTIONAL MATCH (sp:Space {space: $space, id: $space})
// `known` (the Space node exists) spares a search its own round trip to check the space.
RETURN sessions, turns, terms, last_turn, unstamped, last_run, sp.speakers AS speakers,
       sp IS NOT NULL AS known
