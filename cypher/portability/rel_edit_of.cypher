UNWIND $rows AS row
MATCH (a:InsightEdit {space: $space, id: row.source})
MATCH (b:Insight {space: $space, id: row.target})
MERGE (a)-[r:EDIT_OF]->(b)
SET r += row.props
RETURN count(r) AS written
