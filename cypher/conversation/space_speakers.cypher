// The space's participants gathered from its sessions: for a space whose Space node does not
// keep them yet (written before migration 104; space_facts returns null speakers then).
OPTIONAL MATCH (s:Session {space: $space})
WITH collect(s.speakers) AS lists
RETURN reduce(acc = [], names IN lists |
              acc + [x IN coalesce(names, []) WHERE NOT x IN acc]) AS speakers
