// Recomputes the participants the Space node keeps from the space's sessions (after an
// import, which writes sessions without conversation/upsert_sessions). Safe to repeat.
MATCH (sp:Space {space: $space, id: $space})
OPTIONAL MATCH (s:Session {space: $space})
WITH sp, collect(s.speakers) AS lists
SET sp.speakers = reduce(acc = [], names IN lists |
                         acc + [x IN coalesce(names, []) WHERE NOT x IN acc])
RETURN count(sp) AS written
