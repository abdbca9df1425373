// Everything in the source database, to show that a migration wrote nothing there.
MATCH (n)
WITH count(n) AS nodes
OPTIONAL MATCH ()-[r]->()
RETURN nodes, count(r) AS relationships
