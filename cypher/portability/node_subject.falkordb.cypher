UNWIND $rows AS row
MERGE (n:Subject {space: $space, id: row.id})
SET n += row.props,
    n.embedding = CASE WHEN row.embedding IS NULL THEN null ELSE vecf32(row.embedding) END
RETURN count(n) AS written
