/**
 * @module Fails when crds/ (or its copy in examples/kubernetes/crds/) is stale against schemas/
 * (run `npm run gen:crds`), and when a generated CRD breaks apiextensions.k8s.io/v1's
 * structural-schema rules.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KINDS } from '../model/kinds.js';
import { renderCrd, renderCrdFiles } from './crd-render.js';
import { toCrdSchema } from './crd-schema.js';
import { structuralProblems } from './structural-schema.js';

const root = join(import.meta.dirname, '..', '..');

describe('crds/', () => {
  for (const folder of ['crds', join('examples', 'kubernetes', 'crds')]) {
    it(`${folder} matches schemas/`, () => {
      const rendered = renderCrdFiles(join(root, 'schemas'));
      for (const [name, text] of rendered) {
        const committed = readFileSync(join(root, folder, name), 'utf8');
        expect(committed === text, `${folder}/${name} is stale: run npm run gen:crds`).toBe(true);
      }
      // A CRD left behind by a kind schemas/ no longer has is stale too.
      expect(readdirSync(join(root, folder)).filter((name) => name.endsWith('.yaml')).sort(), `${folder} holds a CRD of no kind in schemas/: remove it`).toEqual([...rendered.keys()].sort());
    });
  }

  it.each(KINDS)('the %s CRD is a structural schema with status, printer columns, short names and the cairn category', (kind) => {
    const file = [...renderCrdFiles(join(root, 'schemas')).entries()].find(([name]) => name.startsWith(`${kind.toLowerCase()}s.`));
    const crd = parse(file?.[1] ?? '') as ReturnType<typeof renderCrd> & { spec: { names: Record<string, unknown>; versions: Array<Record<string, unknown>> } };
    const version = crd.spec.versions[0] as { schema: { openAPIV3Schema: unknown }; subresources: unknown; additionalPrinterColumns: Array<{ name: string }> };
    expect(structuralProblems(version.schema.openAPIV3Schema)).toEqual([]);
    expect(version.subresources).toEqual({ status: {} });
    expect(version.additionalPrinterColumns.map((c) => c.name)).toEqual(expect.arrayContaining(['Status', 'Ready', 'Age']));
    expect(crd.spec.names.categories).toEqual(['cairn']);
    expect((crd.spec.names.shortNames as string[]).length).toBeGreaterThan(0);
  });
});

describe('the structural-schema check', () => {
  it('names each rule a schema breaks', () => {
    const problems = structuralProblems({
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { labels: { type: 'object' } } },
        spec: {
          type: 'object',
          properties: {
            untyped: { description: 'no type' },
            tags: { type: 'array', uniqueItems: true, items: { type: 'string' } },
            both: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
            linked: { $ref: '#/definitions/x' },
            weird: { type: 'string', propertyNames: { pattern: 'x' } },
            conditions: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'], items: { type: 'object', properties: { type: { type: 'string' } } } },
            choice: { type: 'string', anyOf: [{ type: 'string' }] },
          },
        },
      },
    });
    expect(problems).toEqual(expect.arrayContaining([
      'openAPIV3Schema.metadata: only name and generateName may be specified under metadata',
      'openAPIV3Schema.spec.untyped: type must not be empty (structural schemas type every node)',
      'openAPIV3Schema.spec.tags: uniqueItems cannot be set to true (use x-kubernetes-list-type: set)',
      'openAPIV3Schema.spec.both: properties and additionalProperties are mutually exclusive',
      'openAPIV3Schema.spec.linked: $ref is forbidden in apiextensions.k8s.io/v1',
      'openAPIV3Schema.spec.weird: unknown field "propertyNames"',
      'openAPIV3Schema.spec.conditions: list map key type must be required or defaulted',
      'openAPIV3Schema.spec.choice.anyOf[0]: type may not appear inside allOf/anyOf/oneOf/not',
    ]));
  });

  it('accepts untyped nodes that preserve unknown fields', () => {
    expect(structuralProblems({ type: 'object', properties: { spec: { 'x-kubernetes-preserve-unknown-fields': true } } })).toEqual([]);
  });
});

describe('the JSON Schema to CRD conversion', () => {
  const noRefs = (): never => {
    throw new Error('no refs here');
  };

  it('turns const into a typed one-value enum and uniqueItems into a set list', () => {
    expect(toCrdSchema({ const: 'x' }, 'p', noRefs)).toEqual({ type: 'string', enum: ['x'] });
    expect(toCrdSchema({ type: 'array', uniqueItems: true, items: { type: 'string' } }, 'p', noRefs)).toEqual({ type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' });
  });

  it('refuses a keyword it cannot carry over, naming where it is', () => {
    expect(() => toCrdSchema({ type: 'object', patternProperties: {} }, 'Server.spec', noRefs)).toThrow('Server.spec: the JSON Schema keyword "patternProperties" has no CRD counterpart');
    expect(() => toCrdSchema({ description: 'untyped' }, 'Server.spec.x', noRefs)).toThrow('Server.spec.x: a structural schema needs a type here');
  });

  it('carries the mongodb storage rule as CEL', () => {
    const db = toCrdSchema({ type: 'object', properties: { type: { enum: ['postgresql', 'mongodb'] }, storageGb: { type: 'integer' } }, if: { properties: { type: { const: 'mongodb' } }, required: ['type'] }, then: { not: { required: ['storageGb'] } } }, 'p', noRefs);
    expect(db['x-kubernetes-validations']).toEqual([{ rule: "!(has(self.type) && self.type == 'mongodb') || (!has(self.storageGb))", message: 'when type is mongodb, storageGb may not be set' }]);
  });

  it('carries the managed-database rule, both branches, as CEL', () => {
    const managed = { if: { properties: { managed: { const: true } }, required: ['managed'] }, then: { required: ['provider', 'size'], properties: { server: false } }, else: { required: ['server'], properties: { provider: false } } };
    const db = toCrdSchema({ type: 'object', properties: { managed: { type: 'boolean' }, server: { type: 'string' }, provider: { type: 'string' }, size: { type: 'string' } }, allOf: [managed] }, 'p', noRefs);
    expect(db['x-kubernetes-validations']).toEqual([
      { rule: '!(has(self.managed) && self.managed == true) || (has(self.provider) && has(self.size) && !has(self.server))', message: 'when managed is true, provider, size must be set and server may not be set' },
      { rule: '(has(self.managed) && self.managed == true) || (has(self.server) && !has(self.provider))', message: 'unless managed is true, server must be set and provider may not be set' },
    ]);
  });
});
