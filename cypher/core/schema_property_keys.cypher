// Every property key (FalkorDB: to decode the key ids of compact replies).
CALL db.propertyKeys()
