// The session's `last_turn` (its part of the space's clock) is set by upsert_turns, with the
// turns that carry the indexes. The Space node keeps the union of its sessions' speakers,
// written here in the same statement; a Space node without the list (from before migration
// 104) is left to the migration, since a partial list would hide the rest.
UNWIND $rows AS row
MERGE (s:Session {space: $space, id: row.id})
ON CREATE SET s.created_at = $now, s.turn_count = 0, s.term_total = 0, s.speakers = []
SET s.speakers = reduce(acc = coalesce(s.speakers, []), x IN row.speakers |
                        CASE WHEN x IN acc THEN acc ELSE acc + [x] END),
    s.first_time = CASE
        WHEN row.first_time IS NULL THEN s.first_time
        WHEN s.first_time IS NULL OR row.first_time < s.first_time THEN row.first_time
        ELSE s.first_time END,
    s.last_time = CASE
        WHEN row.last_time IS NULL THEN s.last_time
        WHEN s.last_time IS NULL OR row.last_time > s.last_time THEN row.last_time
        ELSE s.last_time END
WITH count(s) AS written, collect(row.speakers) AS lists
OPTIONAL MATCH (sp:Space {space: $space, id: $space})
FOREACH (kept IN CASE WHEN sp.speakers IS NULL THEN [] ELSE [sp] END |
    SET kept.speakers = reduce(acc = kept.speakers, names IN lists |
                               acc + [x IN names WHERE NOT x IN acc]))
RETURN written
