// Source turns of the subgraph: turns mentioning its entities, at most $per_entity of each
// (an entity mentioned everywhere would otherwise return the whole space). Only turns have
// MENTIONS edges, so the turn end needs no label (which keeps the plan starting at the entity).
UNWIND $ids AS id
MATCH (e:Entity {space: $space, id: id})
MATCH (e)<-[:MENTIONS]-(t)
WITH e, collect(t)[..$per_entity] AS some
UNWIND some AS t
WITH t, collect(e.id) AS entities
RETURN t.id AS id, t.session AS session, t.seq AS seq, t.speaker AS speaker, t.text AS text,
       t.time AS time, entities
