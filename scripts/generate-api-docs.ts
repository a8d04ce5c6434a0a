/**
 * @module Writes docs/api.md, the REST reference, from schemas/openapi.yaml. Run
 * `npm run gen:api-docs`; a test fails when docs/api.md is stale.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readOpenApi, renderApiReference } from './api-reference.js';

const root = join(import.meta.dirname, '..');
const out = join(root, 'docs', 'api.md');
mkdirSync(join(root, 'docs'), { recursive: true });
writeFileSync(out, renderApiReference(readOpenApi(join(root, 'schemas', 'openapi.yaml'))));
console.log(`wrote ${out}`);
