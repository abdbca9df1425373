UNWIND $rows AS row
MERGE (n:InteractionStep {space: $space, id: row.id})
SET n += row.props
RETURN count(n) AS written
