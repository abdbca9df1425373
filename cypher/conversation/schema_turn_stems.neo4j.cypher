// Migration 105: full-text entries made by graphmem (Turn.stems: tokens and their Snowball
// stems, fulltext.stem_keys), split on whitespace only, so that Neo4j finds the turns
// FalkorDB's RediSearch index finds for a word. The `english` analyser's Porter stemmer
// differs from Snowball's (docs/neo4j.md, "Engine parity").
CREATE FULLTEXT INDEX turn_stems IF NOT EXISTS
FOR (n:Turn) ON EACH [n.stems]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}
