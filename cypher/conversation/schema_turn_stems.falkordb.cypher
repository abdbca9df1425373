// Migration 105: FalkorDB's full-text index stems Turn.text itself (migration 102); Neo4j
// indexes Turn.stems instead. Nothing to change here.
RETURN 0 AS changed
