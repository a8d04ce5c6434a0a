/** @module Tests of the SQLite store: apply semantics, ownership, deletion refusal, status, events, leases. */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, PreconditionFailedError } from '../model/errors.js';
import type { AnyManifest } from '../model/resource.js';
import { Store } from './store.js';
import { itOnSqliteFile } from '../../test/support/store-engine.js';

const provider: AnyManifest = { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'sandbox' }, spec: { vendor: 'sandbox' } };
const server = (size = 'small', labels?: Record<string, string>): AnyManifest => ({
  apiVersion: 'cairn.dev/v1',
  kind: 'Server',
  metadata: { name: 'web-1', ...(labels ? { labels } : {}) },
  spec: { provider: 'sandbox', region: 'eu-1', size },
});
const database: AnyManifest = {
  apiVersion: 'cairn.dev/v1',
  kind: 'Database',
  metadata: { name: 'shop-db' },
  spec: { type: 'postgresql', server: 'web-1', version: '16', storageGb: 10 },
};

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-store-'));
  store = Store.open(dir);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Store', () => {
  itOnSqliteFile('creates resources at generation 1 with a pending status, in WAL mode', () => {
    const outcome = store.resources.apply('default', 'api', [provider, server()]);
    expect(outcome.results.map((r) => r.action)).toEqual(['created', 'created']);
    const web = store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'web-1' });
    expect(web?.generation).toBe(1);
    expect(web?.status.phase).toBe('pending');
    expect(store.resources.find('default', { kind: 'Provider', namespace: 'default', name: 'sandbox' })?.status.phase).toBe('untested');
    expect(statSync(join(dir, 'cairn.db-wal')).isFile()).toBe(true);
  });

  it('bumps generation only when the spec changes, and resourceVersion on every write', () => {
    store.resources.apply('default', 'api', [provider, server()]);
    const first = store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'web-1' });
    expect(store.resources.apply('default', 'api', [server()]).results[0]?.action).toBe('unchanged');
    store.resources.apply('default', 'api', [server('small', { team: 'shop' })]);
    const relabelled = store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'web-1' });
    expect(relabelled?.generation).toBe(1);
    expect(relabelled?.resourceVersion).toBeGreaterThan(first?.resourceVersion ?? 0);
    store.resources.apply('default', 'api', [server('large', { team: 'shop' })]);
    expect(store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'web-1' })?.generation).toBe(2);
  });

  it('keeps specVersion through status writes, so an If-Match read before the reconciler wrote still holds', () => {
    store.resources.apply('default', 'api', [provider, server()]);
    const created = store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'web-1' });
    if (!created) throw new Error('not created');
    store.resources.writeStatus(created.uid, created.statusVersion, { ...created.status, phase: 'provisioning' });
    const afterStatus = store.resources.get(created.uid);
    expect(afterStatus?.resourceVersion).toBeGreaterThan(created.resourceVersion);
    expect(afterStatus?.specVersion).toBe(created.specVersion);
    const resized = store.resources.modify(created.uid, 'api', () => server('medium'), created.specVersion);
    expect(resized.specVersion).toBeGreaterThan(created.specVersion);
    expect(() => store.resources.modify(created.uid, 'api', () => server('large'), created.specVersion)).toThrow(
      PreconditionFailedError,
    );
    expect(() => store.resources.requestDeletionOf(created.uid, 'api', created.specVersion)).toThrow(PreconditionFailedError);
    expect(store.resources.requestDeletionOf(created.uid, 'api', resized.specVersion).deletionTimestamp).not.toBeNull();
  });

  it('keeps a bounded number of tombstones, pruning a batch at a time and remembering how far', () => {
    const small = Store.open(join(dir, 'tombstones'), { tombstonesKept: 20 });
    try {
      small.resources.apply('default', 'api', [provider]);
      for (let i = 0; i < 45; i++) {
        const name = `s-${i}`;
        small.resources.apply('default', 'api', [{ ...server(), metadata: { name } }]);
        small.resources.remove(small.resources.find('default', { kind: 'Server', namespace: 'default', name })?.uid ?? '');
      }
      const kept = small.history.changesSince({ tenant: 'default', kind: 'Server' }, 0).removed.length;
      expect(kept).toBeGreaterThanOrEqual(20);
      expect(kept).toBeLessThanOrEqual(22);
      expect(small.history.prunedThrough()).toBeGreaterThan(0);
    } finally {
      small.close();
    }
  });

  it('keeps a pending create until a status write records the vendor id, so a crash in between still finds it by key', () => {
    store.resources.apply('default', 'api', [provider, server()]);
    const web = store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'web-1' });
    if (!web) throw new Error('not created');
    store.operations.begin(web.uid, 'create', 'cairn-key-0');
    expect(store.resources.writeStatus(web.uid, web.statusVersion, { ...web.status, phase: 'provisioning' })).toBe(true);
    expect(store.operations.get(web.uid, 'create')?.idempotencyKey).toBe('cairn-key-0');
    expect(store.resources.writeStatus(web.uid, web.statusVersion + 1, { ...web.status, phase: 'provisioning', externalId: 'srv-1' })).toBe(true);
    expect(store.operations.get(web.uid, 'create')).toBeUndefined();
  });

  it('writes status only at the version the writer read: a second writer from the same read is refused and changes nothing', () => {
    store.resources.apply('default', 'api', [provider, server()]);
    const read = store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'web-1' });
    if (!read) throw new Error('not created');
    expect(read.statusVersion).toBe(1);
    expect(store.resources.writeStatus(read.uid, read.statusVersion, { ...read.status, phase: 'provisioning' })).toBe(true);
    const first = store.resources.get(read.uid);
    expect(first?.statusVersion).toBe(2);

    // A writer that read before the first write: refused, the first write kept, no new revision.
    const revision = store.resources.revision();
    store.operations.begin(read.uid, 'create', 'cairn-key-0');
    expect(store.resources.writeStatus(read.uid, read.statusVersion, { ...read.status, phase: 'running', externalId: 'srv-1' })).toBe(false);
    const after = store.resources.get(read.uid);
    expect(after?.status.phase).toBe('provisioning');
    expect(after?.status.externalId).toBeNull();
    expect(after?.statusVersion).toBe(2);
    expect(store.resources.revision()).toBe(revision);
    // The refused write recorded no vendor id, so the pending create stays (found by key on the retry).
    expect(store.operations.get(read.uid, 'create')?.idempotencyKey).toBe('cairn-key-0');

    // Read again, re-applied: accepted.
    expect(store.resources.writeStatus(read.uid, 2, { ...first!.status, phase: 'running', externalId: 'srv-1' })).toBe(true);
    expect(store.resources.get(read.uid)?.status.phase).toBe('running');
    // A resource that is gone takes no status.
    store.resources.remove(read.uid);
    expect(store.resources.writeStatus(read.uid, 3, { ...read.status, phase: 'x' })).toBe(false);
  });

  it('refuses changes from another source, naming the owner, and writes nothing', () => {
    store.resources.apply('default', 'git:abc', [provider]);
    const before = store.resources.revision();
    expect(() => store.resources.apply('default', 'api', [server(), provider])).toThrow(/Provider\/sandbox is owned by git:abc/);
    expect(store.resources.revision()).toBe(before);
    expect(store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'web-1' })).toBeUndefined();
  });

  it('refuses to delete a server a database still uses, unless both go together', () => {
    store.resources.apply('default', 'api', [provider, server(), database]);
    const web = { kind: 'Server' as const, namespace: 'default', name: 'web-1' };
    expect(() => store.resources.requestDeletion('default', 'api', [web])).toThrow(ConflictError);
    expect(() => store.resources.requestDeletion('default', 'api', [web])).toThrow(/Server\/web-1 is still used by Database\/shop-db/);
    const { uids } = store.resources.requestDeletion('default', 'api', [web, { kind: 'Database', namespace: 'default', name: 'shop-db' }]);
    expect(uids).toHaveLength(2);
    expect(store.resources.find('default', web)?.deletionTimestamp).not.toBeNull();
    expect(() => store.resources.requestDeletion('default', 'api', [{ kind: 'App', namespace: 'default', name: 'nope' }])).toThrow(NotFoundError);
  });

  it('re-applying a resource being deleted cancels the deletion', () => {
    store.resources.apply('default', 'api', [provider]);
    store.resources.requestDeletion('default', 'api', [{ kind: 'Provider', namespace: 'default', name: 'sandbox' }]);
    const outcome = store.resources.apply('default', 'api', [provider]);
    expect(outcome.results[0]?.action).toBe('restored');
    expect(store.resources.find('default', { kind: 'Provider', namespace: 'default', name: 'sandbox' })?.deletionTimestamp).toBeNull();
  });

  it('keeps status, feeds changes by revision, and forgets removed resources', () => {
    store.resources.apply('default', 'api', [provider]);
    const p = store.resources.find('default', { kind: 'Provider', namespace: 'default', name: 'sandbox' });
    if (!p) throw new Error('missing');
    const mark = store.resources.revision();
    store.resources.writeStatus(p.uid, p.statusVersion, { ...p.status, phase: 'valid', externalId: 'x-1' });
    const changed = store.resources.changedSince(mark);
    expect(changed.map((r) => r.uid)).toEqual([p.uid]);
    expect(changed[0]?.status.phase).toBe('valid');
    store.resources.remove(p.uid);
    expect(store.resources.get(p.uid)).toBeUndefined();
  });

  it('survives reopening: state is on disk', () => {
    store.resources.apply('default', 'api', [provider]);
    store.events.append({ tenant: 'default', uid: 'u', kind: 'Provider', namespace: 'default', name: 'sandbox', type: 'Normal', reason: 'Test', message: 'hello' });
    store.operations.begin('u', 'create', 'cairn-u-0');
    store.close();
    store = Store.open(dir);
    expect(store.resources.list({ tenant: 'default' })).toHaveLength(1);
    expect(store.events.list({ tenant: 'default' })[0]?.message).toBe('hello');
    expect(store.operations.get('u', 'create')?.idempotencyKey).toBe('cairn-u-0');
  });
});

describe('Leases', () => {
  it('lets one holder at a time reconcile, and takes over from an expired one', () => {
    expect(store.leases.tryAcquire('reconciler', 'a', 60_000).acquired).toBe(true);
    const second = store.leases.tryAcquire('reconciler', 'b', 60_000);
    expect(second.acquired).toBe(false);
    if (!second.acquired) expect(second.heldBy.pid).toBe(process.pid);
    expect(store.leases.renew('reconciler', 'a', -1)).toBe(true);
    expect(store.leases.tryAcquire('reconciler', 'b', 60_000).acquired).toBe(true);
    expect(store.leases.renew('reconciler', 'a', 60_000)).toBe(false);
  });
});

describe('opening a new data dir from several processes at once', () => {
  it('migrates exactly once', async () => {
    const { spawn } = await import('node:child_process');
    const fresh = mkdtempSync(join(tmpdir(), 'cairn-race-'));
    // Every child loads first, then all open the store at the same instant.
    const at = Date.now() + 4_000;
    const script = `import { Store } from ${JSON.stringify(join(import.meta.dirname, 'store.ts'))};
      while (Date.now() < ${at}) {}
      Store.open(${JSON.stringify(fresh)}).close();`;
    const runs = Array.from({ length: 4 }, () =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('close', (code) => resolve({ code, stderr }));
      }),
    );
    for (const run of await Promise.all(runs)) expect(run.stderr).toBe('');
    rmSync(fresh, { recursive: true, force: true });
  });
});
