/**
 * @module Fails when src/model/generated/kinds.ts or src/model/generated/validators.ts is stale
 * against schemas/ (run `npm run gen:types`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderKindTypes } from './kind-types-source.js';
import { renderKindValidators } from './validator-source.js';

const root = join(import.meta.dirname, '..', '..');

describe('generated kind types', () => {
  it('match the JSON Schemas', async () => {
    const committed = readFileSync(join(root, 'src', 'model', 'generated', 'kinds.ts'), 'utf8');
    expect(committed, 'src/model/generated/kinds.ts is stale: run npm run gen:types').toBe(await renderKindTypes(join(root, 'schemas')));
  });
});

describe('generated kind validators', () => {
  it('match the JSON Schemas', () => {
    const committed = readFileSync(join(root, 'src', 'model', 'generated', 'validators.ts'), 'utf8');
    expect(committed === renderKindValidators(join(root, 'schemas')), 'src/model/generated/validators.ts is stale: run npm run gen:types').toBe(true);
  });
});
