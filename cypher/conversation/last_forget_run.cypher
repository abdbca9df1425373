MATCH (r:ForgetRun {space: $space})
RETURN max(r.at_turn) AS at_turn, count(r) AS runs
