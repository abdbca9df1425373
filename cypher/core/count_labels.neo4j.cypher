// Nodes per label in one space: one index seek per label (a MATCH without a label scans the
// whole database on Neo4j). tests/unit/test_schema_registry.py checks that every label is here.
CALL () {
  MATCH (n:Space {space: $space}) RETURN 'Space' AS label, count(n) AS count
  UNION ALL
  MATCH (n:Session {space: $space}) RETURN 'Session' AS label, count(n) AS count
  UNION ALL
  MATCH (n:Turn {space: $space}) RETURN 'Turn' AS label, count(n) AS count
  UNION ALL
  MATCH (n:Entity {space: $space}) RETURN 'Entity' AS label, count(n) AS count
  UNION ALL
  MATCH (n:ForgetRun {space: $space}) RETURN 'ForgetRun' AS label, count(n) AS count
  UNION ALL
  MATCH (n:Forgotten {space: $space}) RETURN 'Forgotten' AS label, count(n) AS count
  UNION ALL
  MATCH (n:MemoryUnit {space: $space}) RETURN 'MemoryUnit' AS label, count(n) AS count
  UNION ALL
  MATCH (n:Subject {space: $space}) RETURN 'Subject' AS label, count(n) AS count
  UNION ALL
  MATCH (n:Category {space: $space}) RETURN 'Category' AS label, count(n) AS count
  UNION ALL
  MATCH (n:Context {space: $space}) RETURN 'Context' AS label, count(n) AS count
  UNION ALL
  MATCH (n:Query {space: $space}) RETURN 'Query' AS label, count(n) AS count
  UNION ALL
  MATCH (n:InteractionStep {space: $space}) RETURN 'InteractionStep' AS label, count(n) AS count
  UNION ALL
  MATCH (n:Insight {space: $space}) RETURN 'Insight' AS label, count(n) AS count
  UNION ALL
  MATCH (n:InsightEdit {space: $space}) RETURN 'InsightEdit' AS label, count(n) AS count
  UNION ALL
  MATCH (n:Task {space: $space}) RETURN 'Task' AS label, count(n) AS count
  UNION ALL
  MATCH (n:Trajectory {space: $space}) RETURN 'Trajectory' AS label, count(n) AS count
  UNION ALL
  MATCH (n:Action {space: $space}) RETURN 'Action' AS label, count(n) AS count
  UNION ALL
  MATCH (n:StoreItem {space: $space}) RETURN 'StoreItem' AS label, count(n) AS count
}
WITH label, count
WHERE count > 0
RETURN label, count
ORDER BY label
