/**
 * @module Generates src/model/generated/kinds.ts (the kinds' TypeScript types) and
 * src/model/generated/validators.ts (their ajv standalone validators) from the JSON Schemas in
 * schemas/, so that neither can drift from the schemas. Run `npm run gen:types`; a test fails
 * when a committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderKindTypes } from '../src/model/kind-types-source.js';
import { renderKindValidators } from '../src/model/validator-source.js';

const root = join(import.meta.dirname, '..');
const schemaDir = join(root, 'schemas');
const generated = join(root, 'src', 'model', 'generated');
for (const [file, source] of [
  ['kinds.ts', await renderKindTypes(schemaDir)],
  ['validators.ts', renderKindValidators(schemaDir)],
] as const) {
  const out = join(generated, file);
  writeFileSync(out, source);
  console.log(`wrote ${out}`);
}
