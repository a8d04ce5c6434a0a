/**
 * @module What validating a manifest object says (as the API would, for a posted body): one
 * issue per problem, pointing at the field, worded for the person who wrote it.
 */
import { describe, expect, it } from 'vitest';
import { closestWord } from './closest-word.js';
import { validateManifest, validateManifestShape } from './schema-validator.js';

function database(spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'shop-db' }): Record<string, unknown> {
  return { apiVersion: 'cairn.dev/v1', kind: 'Database', metadata, spec: { type: 'postgresql', server: 'web-1', version: '16', ...spec } };
}

describe('validateManifestShape', () => {
  it('accepts a valid manifest and narrows it, leaving defaults unapplied', () => {
    const doc = database({ storageGb: 20 });
    const result = validateManifest(doc);
    expect(result.valid).toBe(true);
    if (result.valid) {
      expect(result.manifest.kind).toBe('Database');
      expect(result.manifest.spec).not.toHaveProperty('deletionPolicy');
    }
    expect(validateManifestShape(doc)).toEqual([]);
  });

  it('says what is wrong with numbers, enums and unknown fields, at the field', () => {
    expect(validateManifestShape(database({ storageGb: 0, type: 'mysql', colour: 'red' }))).toEqual([
      { pointer: '/spec/colour', message: 'unknown field "colour"', locateAt: 'key' },
      { pointer: '/spec/type', message: 'must be one of: postgresql, mongodb' },
      { pointer: '/spec/storageGb', message: 'must be >= 1' },
    ]);
  });

  it('points a missing field at where it belongs', () => {
    // region and size are required by the provider's vendor (all but ssh), which the schema cannot see: see server-vendor-fields.ts.
    expect(validateManifestShape({ apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name: 'web-1' }, spec: { region: 'r', size: 's' } })).toEqual([
      { pointer: '/spec/provider', message: 'is required' },
    ]);
  });

  it('words the mongodb rule and the exactly-one-source rule once each, without if/then noise', () => {
    expect(validateManifestShape(database({ type: 'mongodb', storageGb: 5 }))).toEqual([
      { pointer: '/spec/storageGb', message: 'storageGb is only for postgresql' },
    ]);
    const app = { apiVersion: 'cairn.dev/v1', kind: 'App', metadata: { name: 'shop' }, spec: { server: 'web-1', source: { image: 'x', path: '/srv' } } };
    expect(validateManifestShape(app)).toEqual([{ pointer: '/spec/source', message: 'exactly one of git, image, path' }]);
  });

  it('holds a managed database to provider, region and size, and one on a server to its server, in words', () => {
    const managed = { type: 'postgresql', version: '16', managed: true, provider: 'do', region: 'fra1', size: 'db-s-1vcpu-1gb' };
    const onServer = (spec: object) => ({ apiVersion: 'cairn.dev/v1', kind: 'Database', metadata: { name: 'db' }, spec });
    expect(validateManifestShape(onServer(managed))).toEqual([]);
    expect(validateManifestShape(onServer({ type: 'postgresql', version: '16', managed: true, provider: 'do', server: 'web-1' }))).toEqual([
      { pointer: '/spec/region', message: 'is required' },
      { pointer: '/spec/size', message: 'is required' },
      { pointer: '/spec/server', message: 'a managed database (managed: true) runs at its provider, not on a server: remove server' },
    ]);
    expect(validateManifestShape(onServer({ type: 'postgresql', version: '16', server: 'web-1', size: 'db-s-1vcpu-1gb' }))).toEqual([
      { pointer: '/spec/size', message: 'size is for managed databases only: add managed: true, or remove size and name the server it runs on' },
    ]);
    expect(validateManifestShape(onServer({ type: 'postgresql', version: '16' }))).toEqual([{ pointer: '/spec/server', message: 'is required' }]);
  });

  it('refuses an import annotation on an App, saying apps cannot be imported (plans never show an import cairn would not carry out)', () => {
    const app = { apiVersion: 'cairn.dev/v1', kind: 'App', metadata: { name: 'shop', annotations: { 'cairn.dev/external-id': 'app-1' } }, spec: { server: 'web-1', source: { path: '/srv' } } };
    expect(validateManifestShape(app)).toEqual([
      { pointer: '/metadata/annotations/cairn.dev~1external-id', message: 'apps cannot be imported: cairn builds and deploys an app itself; remove the annotation and cairn deploys it' },
    ]);
    const server = { apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name: 'web-1', annotations: { 'cairn.dev/external-id': '42' } }, spec: { provider: 'p', region: 'r', size: 's' } };
    expect(validateManifestShape(server)).toEqual([]);
  });

  it('explains DNS-1123 names and lengths', () => {
    const issues = validateManifestShape(database({}, { name: 'Shop_DB' }));
    expect(issues).toEqual([
      { pointer: '/metadata/name', message: "must be a DNS-1123 label (lower-case letters, digits and '-', starting and ending with a letter or digit)" },
    ]);
    expect(validateManifestShape(database({}, { name: 'a'.repeat(64) }))).toEqual([{ pointer: '/metadata/name', message: 'must be at most 63 characters' }]);
    expect(validateManifestShape(database({}, { name: '' }))).toContainEqual({ pointer: '/metadata/name', message: 'must not be empty' });
  });

  it('reports invalid keys at the key, and repeated list items at the repeat', () => {
    const app = {
      apiVersion: 'cairn.dev/v1',
      kind: 'App',
      metadata: { name: 'shop' },
      spec: { server: 'web-1', source: { path: '/srv' }, env: { '1BAD': 'x' }, databases: ['a', 'b', 'a'] },
    };
    expect(validateManifestShape(app)).toEqual([
      {
        pointer: '/spec/env/1BAD',
        message: "invalid key: must be an environment variable name (letters, digits and '_', not starting with a digit)",
        locateAt: 'key',
      },
      { pointer: '/spec/databases/2', message: 'is already listed at spec.databases[0]' },
    ]);
  });

  it('names the type it wanted and the type it got, and suggests quoting numbers meant as strings', () => {
    expect(validateManifestShape(database({ version: 16, storageGb: '20', backup: [] }))).toEqual([
      { pointer: '/spec/version', message: 'must be a string, not a number (put it in quotes: "16")' },
      { pointer: '/spec/storageGb', message: 'must be an integer, not a string' },
      { pointer: '/spec/backup', message: 'must be a mapping, not a list' },
    ]);
  });

  it('gives one clear issue for a missing or unknown kind, suggesting the closest', () => {
    expect(validateManifestShape({ apiVersion: 'cairn.dev/v1', kind: 'Sever' })).toEqual([
      { pointer: '', message: 'unknown kind "Sever"; kinds are Provider, SSHKey, Server, Database, App, AlertRule; did you mean Server?' },
    ]);
    expect(validateManifestShape({ kind: 'database' })[0]?.message).toMatch(/did you mean Database\?$/);
    expect(validateManifestShape({ kind: 'Deployment' })[0]?.message).toBe('unknown kind "Deployment"; kinds are Provider, SSHKey, Server, Database, App, AlertRule');
    expect(validateManifestShape({ metadata: { name: 'x' } })[0]?.message).toBe('kind is required; kinds are Provider, SSHKey, Server, Database, App, AlertRule');
    expect(validateManifestShape(['a'])[0]?.message).toBe('a manifest must be a mapping (apiVersion, kind, metadata, spec), not a list');
  });

  it('says which apiVersion is supported', () => {
    const doc = { ...database({}), apiVersion: 'cairn.dev/v1beta1' };
    expect(validateManifestShape(doc)).toEqual([
      { pointer: '/apiVersion', message: 'unsupported apiVersion "cairn.dev/v1beta1"; the supported apiVersion is cairn.dev/v1' },
    ]);
  });
});

describe('closestWord', () => {
  it('suggests only near misses', () => {
    expect(closestWord('Sever', ['Provider', 'Server'])).toBe('Server');
    expect(closestWord('storagegb', ['storageGb', 'server'])).toBe('storageGb');
    expect(closestWord('colour', ['type', 'server', 'version'])).toBeUndefined();
    expect(closestWord('ab', ['xy'])).toBeUndefined();
  });
});
