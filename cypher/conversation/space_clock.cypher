// The space's logical clock: turns ever ingested. Forgetting deletes turns, so a count of
// the turns stored now would run backwards; the newest turn index and the last run do not.
OPTIONAL MATCH (t:Turn {space: $space})
WITH max(t.created_turn) AS last_turn
OPTIONAL MATCH (r:ForgetRun {space: $space})
RETURN last_turn, max(r.at_turn) AS last_run
