// Every relationship type name (FalkorDB: to decode the type ids of compact replies).
CALL db.relationshipTypes()
