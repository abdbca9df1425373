CALL db.idx.fulltext.createNodeIndex({label: 'Turn', language: 'english'}, 'text')
