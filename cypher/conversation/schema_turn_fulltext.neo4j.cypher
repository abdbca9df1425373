// English analyser: stemming ("adopted" finds "adopt"), like FalkorDB's default language.
CREATE FULLTEXT INDEX turn_text IF NOT EXISTS
FOR (n:Turn) ON EACH [n.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
