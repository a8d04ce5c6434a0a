/** @module Fails when src/model/generated/kinds.ts is stale against schemas/ (run `npm run gen:types`). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderKindTypes } from './kind-types-source.js';

const root = join(import.meta.dirname, '..', '..');

describe('generated kind types', () => {
  it('match the JSON Schemas', async () => {
    const committed = readFileSync(join(root, 'src', 'model', 'generated', 'kinds.ts'), 'utf8');
    expect(committed, 'src/model/generated/kinds.ts is stale: run npm run gen:types').toBe(await renderKindTypes(join(root, 'schemas')));
  });
});
