/**
 * @module A revision applied all or nothing against a real store: every error of an invalid
 * revision and nothing written; the revision each resource was set by; prune and orphans;
 * another owner's resource refused as a conflict; a prune something else depends on refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store.js';
import { REVISION_ANNOTATION } from '../model/resource.js';
import { applyRevision } from './revision-apply.js';

const provider = `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n`;
const server = (name: string, size = 'small'): string =>
  `apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: ${name}\nspec:\n  provider: sandbox\n  region: eu-1\n  size: ${size}\n`;

let dir: string;
let store: Store;
const owner = 'git:0b7f4c1e-0000-4000-8000-000000000001';

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-revision-'));
  store = Store.open(dir);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const names = (): string[] => store.resources.list({ tenant: 'default' }).filter((r) => r.deletionTimestamp === null).map((r) => `${r.kind}/${r.name}`);

describe('applyRevision', () => {
  it('writes a valid revision, stamping each resource with the revision that last set it', () => {
    const first = applyRevision(store, { tenant: 'default', owner, revision: 'r1', prune: true, files: [{ file: 'p.yaml', text: provider }, { file: 's.yaml', text: `${server('a')}---\n${server('b')}` }] });
    expect(first).toMatchObject({ status: 'applied', created: 3, resources: 3 });
    const second = applyRevision(store, { tenant: 'default', owner, revision: 'r2', prune: true, files: [{ file: 'p.yaml', text: provider }, { file: 's.yaml', text: `${server('a', 'medium')}---\n${server('b')}` }] });
    expect(second).toMatchObject({ status: 'applied', created: 0, updated: 1, unchanged: 2 });
    const revisionOf = (name: string): string | undefined => store.resources.find('default', { kind: 'Server', namespace: 'default', name })?.annotations[REVISION_ANNOTATION];
    expect(revisionOf('a')).toBe('r2');
    expect(revisionOf('b')).toBe('r1');
    expect(store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'a' })?.source).toBe(owner);
  });

  it('writes only what changed: the same fields in another order are unchanged, a deletion under way is undone', () => {
    const reordered = `apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: b\nspec:\n  size: small\n  region: eu-1\n  provider: sandbox\n`;
    applyRevision(store, { tenant: 'default', owner, revision: 'r1', prune: true, files: [{ file: 'p.yaml', text: provider }, { file: 's.yaml', text: `${server('a')}---\n${server('b')}---\n${server('c')}` }] });
    const versionOf = (name: string): number | undefined => store.resources.find('default', { kind: 'Server', namespace: 'default', name })?.resourceVersion;
    const before = { a: versionOf('a'), b: versionOf('b') };
    store.resources.requestDeletion('default', owner, [{ kind: 'Server', namespace: 'default', name: 'c' }]);
    const second = applyRevision(store, { tenant: 'default', owner, revision: 'r2', prune: true, files: [{ file: 'p.yaml', text: provider }, { file: 's.yaml', text: `${server('a')}---\n${reordered}---\n${server('c')}` }] });
    expect(second).toMatchObject({ status: 'applied', created: 0, updated: 1, unchanged: 3, resources: 4 });
    expect({ a: versionOf('a'), b: versionOf('b') }).toEqual(before);
    const c = store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'c' });
    expect(c?.deletionTimestamp).toBeNull();
    expect(c?.annotations[REVISION_ANNOTATION]).toBe('r2');
    expect(store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'b' })?.annotations[REVISION_ANNOTATION]).toBe('r1');
  });

  it("refuses a git source's Provider that would reach cairn's host, with file:line, and writes nothing", () => {
    const local = 'apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: here\nspec:\n  vendor: local\n';
    const fromEnv = 'apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: leak\nspec:\n  vendor: sandbox\n  credentialsRef:\n    env: CAIRN_MASTER_KEY\n';
    const outcome = applyRevision(store, { tenant: 'default', owner, revision: 'r1', prune: true, files: [{ file: 'host.yaml', text: `${local}---\n${fromEnv}` }] });
    expect(outcome.status).toBe('invalid');
    const errors = (outcome as { errors: string[] }).errors;
    expect(errors[0]).toMatch(/^host\.yaml:6:\d+: Provider\/here: a git source may not declare a Provider of the local vendor/);
    expect(errors[1]).toMatch(/^host\.yaml:15:\d+: Provider\/leak: a git source may not read cairn's environment/);
    expect(names()).toEqual([]);
    // The operator's own watched directory may.
    expect(applyRevision(store, { tenant: 'default', owner: 'dir:/srv/infra', revision: 'r1', prune: true, files: [{ file: 'host.yaml', text: local }] }).status).toBe('applied');
  });

  it('rejects an invalid revision with every error (file:line) and writes nothing', () => {
    applyRevision(store, { tenant: 'default', owner, revision: 'r1', prune: true, files: [{ file: 'p.yaml', text: provider }, { file: 's.yaml', text: server('a') }] });
    const before = store.resources.revision();
    const outcome = applyRevision(store, {
      tenant: 'default', owner, revision: 'r2', prune: true,
      files: [{ file: 'p.yaml', text: provider }, { file: 's.yaml', text: server('a', 'medium') }, { file: 'bad.yaml', text: `${server('c')}  state: sideways\n---\n${server('d').replace('region: eu-1', 'region: eu-1\n  colour: red')}` }],
    });
    expect(outcome.status).toBe('invalid');
    const errors = outcome.status === 'invalid' ? outcome.errors : [];
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^bad\.yaml:\d+:\d+ Server\/c spec\.state: /);
    expect(errors[1]).toMatch(/^bad\.yaml:\d+:\d+ Server\/d spec.*colour/);
    expect(store.resources.revision()).toBe(before);
    expect(store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'a' })?.spec.size).toBe('small');
  });

  it('prunes resources whose manifests are gone, or reports them as orphans when prune is off', () => {
    applyRevision(store, { tenant: 'default', owner, revision: 'r1', prune: true, files: [{ file: 'p.yaml', text: provider }, { file: 's.yaml', text: `${server('a')}---\n${server('b')}` }] });
    const kept = applyRevision(store, { tenant: 'default', owner, revision: 'r2', prune: false, files: [{ file: 'p.yaml', text: provider }, { file: 's.yaml', text: server('a') }] });
    expect(kept).toMatchObject({ status: 'applied', orphans: ['Server/b'], pruned: [] });
    expect(names()).toContain('Server/b');
    const pruned = applyRevision(store, { tenant: 'default', owner, revision: 'r3', prune: true, files: [{ file: 'p.yaml', text: provider }, { file: 's.yaml', text: server('a') }] });
    expect(pruned).toMatchObject({ status: 'applied', orphans: [], pruned: ['Server/b'] });
    expect(names()).not.toContain('Server/b');
  });

  it('refuses to take over a resource another owner holds, and to prune one something else uses', () => {
    store.resources.apply('default', 'api', [{ apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'sandbox' }, spec: { vendor: 'sandbox' } }]);
    const taken = applyRevision(store, { tenant: 'default', owner, revision: 'r1', prune: true, files: [{ file: 'p.yaml', text: provider }, { file: 's.yaml', text: server('a') }] });
    expect(taken).toMatchObject({ status: 'conflict', conflicts: [{ kind: 'Provider', name: 'sandbox', owner: 'api', claimant: owner }] });
    expect(names()).toEqual(['Provider/sandbox']);
    expect(store.resources.find('default', { kind: 'Provider', namespace: 'default', name: 'sandbox' })?.source).toBe('api');

    applyRevision(store, { tenant: 'default', owner, revision: 'r2', prune: true, files: [{ file: 's.yaml', text: server('a') }] });
    store.resources.apply('default', 'api', [{ apiVersion: 'cairn.dev/v1', kind: 'App', metadata: { name: 'shop' }, spec: { server: 'a', source: { image: 'shop:1' } } }]);
    const prune = applyRevision(store, { tenant: 'default', owner, revision: 'r3', prune: true, files: [] });
    expect(prune.status).toBe('conflict');
    expect(prune.status === 'conflict' && prune.errors[0]).toMatch(/Server\/a is still used by App\/shop/);
    expect(names()).toContain('Server/a');
  });

  it('writes nothing when the source went stale while the revision was fetched', () => {
    const before = store.resources.revision();
    const outcome = applyRevision(store, { tenant: 'default', owner, revision: 'r1', prune: true, files: [{ file: 'p.yaml', text: provider }], staleBecause: () => 'the source was deleted meanwhile' });
    expect(outcome).toEqual({ status: 'stale', reason: 'the source was deleted meanwhile' });
    expect(store.resources.revision()).toBe(before);
    expect(names()).toEqual([]);
  });

  it('rejects whole a revision that would take the tenant past its plan, with the plan and limit as the reason', () => {
    store.close();
    store = Store.open(dir, { env: { CAIRN_STRIPE_SECRET_KEY: 'sk_test_x' } });
    const files = [{ file: 'p.yaml', text: provider }, { file: 's.yaml', text: `${server('a')}---\n${server('b')}---\n${server('c')}` }];
    const outcome = applyRevision(store, { tenant: 'default', owner, revision: 'r1', prune: true, files });
    expect(outcome).toEqual({ status: 'over_quota', errors: ['the free plan allows 2 servers; this would make 3 (upgrade with POST /billing/checkout, or delete some first)'] });
    expect(names()).toEqual([]);
  });
});
