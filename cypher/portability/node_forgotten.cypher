UNWIND $rows AS row
MERGE (n:Forgotten {space: $space, id: row.id})
SET n += row.props
RETURN count(n) AS written
