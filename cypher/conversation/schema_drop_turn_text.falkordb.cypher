// Migration 105: FalkorDB keeps its full-text index of Turn.text. Nothing to drop.
RETURN 0 AS changed
