UNWIND $rows AS row
MERGE (n:Context {space: $space, id: row.id})
SET n += row.props
RETURN count(n) AS written
