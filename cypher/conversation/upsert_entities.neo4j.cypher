// Merged names are kept as aliases; where an entity came from is kept by its MENTIONS edges
// and `first_turn`.
UNWIND $rows AS row
MERGE (e:Entity {space: $space, id: row.id})
ON CREATE SET e.name = row.name, e.name_key = row.name_key, e.type = row.type,
              e.created_at = $now,
              e.created_turn = row.turn_index, e.first_turn = row.first_turn,
              e.access_count = 0, e.last_access_turn = row.turn_index, e.aliases = [],
              e.mention_count = 0
SET e.aliases = reduce(acc = coalesce(e.aliases, []), x IN row.aliases |
                       CASE WHEN x IN acc OR x = e.name THEN acc ELSE acc + [x] END),
    e.last_turn = CASE WHEN coalesce(e.last_turn, -1) < row.turn_index
                       THEN row.turn_index ELSE e.last_turn END
WITH e, row
CALL (e, row) {
  WITH e, row WHERE e.embedding IS NULL  // a new entity: its name's vector
  CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
}
RETURN count(e) AS written
