// Migration 104: every Space node keeps its participants (the union of its sessions'
// speakers), so space_facts reads one list instead of gathering it from every session.
MATCH (sp:Space)
WHERE sp.speakers IS NULL
OPTIONAL MATCH (s:Session {space: sp.space})
WITH sp, collect(s.speakers) AS lists
SET sp.speakers = reduce(acc = [], names IN lists |
                         acc + [x IN coalesce(names, []) WHERE NOT x IN acc])
RETURN count(sp) AS written
