// Of the given turns ($ids), those that name a time: they mention a date entity, which
// ingestion makes from a date in the text ("8 May 2023") or from a relative phrase resolved
// against the turn's own time ("last week" said on 8 May 2023 → the week of 1 May). A question
// asking when something happened is answered by such a turn far more often than by another
// (docs/conversation.md, "The time signal"). The turn is matched first, by its key.
UNWIND $ids AS id
MATCH (t:Turn {space: $space, id: id})-[:MENTIONS]->(e:Entity)
WHERE e.type = $type
RETURN DISTINCT t.id AS id
