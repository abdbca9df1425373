// A Mem0-1.0.11-shaped graph store for benchmarks/migrate_mem0.py: nodes labelled with their
// entity type, relationships typed by their relation text (Cypher 5.26 dynamic labels and
// types), the properties Mem0's _add_entities sets, and soft deletes as its _delete_entities.
UNWIND $rows AS row
MERGE (a:$(row.source_type) {name: row.source, user_id: row.user_id})
ON CREATE SET a.created = row.created, a.mentions = 1
MERGE (b:$(row.target_type) {name: row.target, user_id: row.user_id})
ON CREATE SET b.created = row.created, b.mentions = 1
MERGE (a)-[r:$(row.relation)]->(b)
ON CREATE SET r.created_at = row.created, r.updated_at = row.created, r.mentions = 1,
              r.valid = true
SET r.valid = CASE WHEN row.deleted THEN false ELSE r.valid END,
    r.invalidated_at = CASE WHEN row.deleted THEN datetime({epochMillis: row.created + 1000})
                            ELSE null END
RETURN count(r) AS written
