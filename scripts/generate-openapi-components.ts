/**
 * @module Writes each kind's REST fields, derived from schemas/*.schema.json and
 * src/api/records/rest-field-mapping.ts: the codecs' table (src/api/records/generated/rest-fields.ts)
 * and the kinds' components between the `generated` markers of schemas/openapi.yaml. Run
 * `npm run gen:openapi-components` (or `npm run gen`); a test fails when either is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderOpenApiDocument, restFieldTableSource } from './openapi-components.js';

const root = join(import.meta.dirname, '..');
const schemaDir = join(root, 'schemas');
const table = join(root, 'src', 'api', 'records', 'generated', 'rest-fields.ts');
writeFileSync(table, restFieldTableSource(schemaDir));
console.log(`wrote ${table}`);
const document = join(schemaDir, 'openapi.yaml');
writeFileSync(document, renderOpenApiDocument(readFileSync(document, 'utf8'), schemaDir));
console.log(`wrote ${document}`);
