// Regenerates openapi.json and src/paygate.d.ts from paygate's own document (run `npm run build`
// at the repository root first): `npm run generate -w examples/typescript-client`.
// test/e2e/openapi-tools.test.ts renders both the same way and fails when the committed files differ.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/** The URL the committed document names; a real client passes its own baseUrl. */
export const EXAMPLE_SERVER = 'http://localhost:8080';

/** The document as committed: the served one with the example server URL, two-space JSON. */
export function documentText(doc) {
  return `${JSON.stringify({ ...doc, servers: [{ url: EXAMPLE_SERVER }] }, null, 2)}\n`;
}

/** openapi-typescript's rendering of the document, as its CLI writes it. */
export async function typesText(doc) {
  const ast = await openapiTS(JSON.parse(documentText(doc)));
  return COMMENT_HEADER + astToString(ast);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { openApiDocument } = await import('../../dist/http/openapi-document.js');
  const doc = openApiDocument(EXAMPLE_SERVER);
  const here = (p) => fileURLToPath(new URL(p, import.meta.url));
  writeFileSync(here('openapi.json'), documentText(doc));
  writeFileSync(here('src/paygate.d.ts'), await typesText(doc));
  console.log('wrote openapi.json and src/paygate.d.ts');
}
