// Reads [{name, text}] as JSON on stdin; prints [{name, errors: [message]}] as JSON.
// Schema: the procedure and function signatures of Neo4j 5 that ship with the pinned
// @neo4j-cypher/language-support, so unknown procedures and wrong arities are errors.
import { lintCypherQuery, isNotParamError } from '@neo4j-cypher/language-support';
import { testData } from './node_modules/@neo4j-cypher/language-support/dist/esm/project/language-support/src/tests/testData.js';

const schema = {
  procedures: testData.mockSchema.procedures,
  functions: testData.mockSchema.functions,
};

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const queries = JSON.parse(input);
  const report = queries.map(({ name, text }) => {
    const { diagnostics } = lintCypherQuery(text, schema);
    const errors = diagnostics
      .filter((d) => d.severity === 1 && isNotParamError(d))
      .map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.message}`);
    const warnings = diagnostics
      .filter((d) => d.severity !== 1)
      .map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.message}`);
    return { name, errors, warnings };
  });
  process.stdout.write(JSON.stringify(report));
});
