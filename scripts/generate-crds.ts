/**
 * @module Writes crds/ (one CustomResourceDefinition per kind) and the copy kubectl users apply
 * from examples/kubernetes/crds/, from the JSON Schemas in schemas/. Run `npm run gen:crds`; a
 * test fails when either is stale.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderCrdFiles } from '../src/kubernetes/crd-render.js';

const root = join(import.meta.dirname, '..');
for (const folder of [join(root, 'crds'), join(root, 'examples', 'kubernetes', 'crds')]) {
  mkdirSync(folder, { recursive: true });
  for (const [name, text] of renderCrdFiles(join(root, 'schemas'))) {
    writeFileSync(join(folder, name), text);
    console.log(`wrote ${join(folder, name)}`);
  }
}
