/**
 * @module Generates src/model/generated/kinds.ts from the JSON Schemas in schemas/, so that the
 * TypeScript types of the kinds cannot drift from the schemas the validator enforces.
 * Run `npm run gen:types`; a test fails when the committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderKindTypes } from '../src/model/kind-types-source.js';

const root = join(import.meta.dirname, '..');
const out = join(root, 'src', 'model', 'generated', 'kinds.ts');
writeFileSync(out, await renderKindTypes(join(root, 'schemas')));
console.log(`wrote ${out}`);
