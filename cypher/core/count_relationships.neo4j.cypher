// Relationships per type in one space, found from their source nodes by an index seek per
// label (see count_labels.neo4j.cypher).
CALL () {
  MATCH (:Space {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:Session {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:Turn {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:Entity {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:ForgetRun {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:Forgotten {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:MemoryUnit {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:Subject {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:Category {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:Context {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:Query {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:InteractionStep {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:Insight {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:InsightEdit {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:Task {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:Trajectory {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:Action {space: $space})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (:StoreItem {space: $space})-[r]->() RETURN type(r) AS type
}
RETURN type, count(*) AS count
ORDER BY type
