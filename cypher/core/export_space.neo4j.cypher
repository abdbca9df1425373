// One statement; what a transaction committed while it runs shows only in part is dropped by the reader
// (portability.dump_records: Neo4j reads at read-committed isolation). The space's
// nodes are found by an index seek per label (see count_labels.neo4j.cypher).
CALL () {
  MATCH (n:Space {space: $space}) RETURN n
  UNION ALL
  MATCH (n:Session {space: $space}) RETURN n
  UNION ALL
  MATCH (n:Turn {space: $space}) RETURN n
  UNION ALL
  MATCH (n:Entity {space: $space}) RETURN n
  UNION ALL
  MATCH (n:ForgetRun {space: $space}) RETURN n
  UNION ALL
  MATCH (n:Forgotten {space: $space}) RETURN n
  UNION ALL
  MATCH (n:MemoryUnit {space: $space}) RETURN n
  UNION ALL
  MATCH (n:Subject {space: $space}) RETURN n
  UNION ALL
  MATCH (n:Category {space: $space}) RETURN n
  UNION ALL
  MATCH (n:Context {space: $space}) RETURN n
  UNION ALL
  MATCH (n:Query {space: $space}) RETURN n
  UNION ALL
  MATCH (n:InteractionStep {space: $space}) RETURN n
  UNION ALL
  MATCH (n:Insight {space: $space}) RETURN n
  UNION ALL
  MATCH (n:InsightEdit {space: $space}) RETURN n
  UNION ALL
  MATCH (n:Task {space: $space}) RETURN n
  UNION ALL
  MATCH (n:Trajectory {space: $space}) RETURN n
  UNION ALL
  MATCH (n:Action {space: $space}) RETURN n
  UNION ALL
  MATCH (n:StoreItem {space: $space}) RETURN n
}
OPTIONAL MATCH (n)-[r]->(m)
WHERE m.space = $space
WITH n, collect(CASE WHEN r IS NULL THEN null
                     ELSE {type: type(r), target: m.id, target_label: labels(m)[0],
                           props: properties(r)} END) AS rels
RETURN labels(n)[0] AS label, properties(n) AS props, rels
ORDER BY label, props.id
