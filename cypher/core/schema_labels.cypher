// Every label name. The FalkorDB store decodes the label ids of compact replies with them
// (store/falkordb_protocol.py).
CALL db.labels()
