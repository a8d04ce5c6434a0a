/**
 * @module Tests of the fenced store view: calls land while the lease holds, and are refused —
 * in their own transaction, inside an open commit group too — once the shard is given back or
 * taken by another replica, leaving what was written before in place.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewEvent } from '../store/events.js';
import { Store } from '../store/store.js';
import { FencedWriteError, fencedStore, shardFence, type WriteFence } from './fenced-store.js';

const TTL = 60_000;
let dataDir: string;
let store: Store;
let fence: WriteFence;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'cairn-fenced-store-'));
  store = Store.open(dataDir);
  const [lease] = store.shardLeases.pass('me', [], TTL).held;
  if (!lease) throw new Error('no shard taken');
  fence = shardFence(store.shardLeases, lease.shard, 'me', lease.token);
});
afterEach(() => {
  store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const event = (reason: string): NewEvent => ({ tenant: 'default', uid: 'u-1', kind: 'Server', namespace: 'default', name: 'web', type: 'Normal', reason, message: reason });
const reasons = (s: Store): string[] => s.events.list({ tenant: 'default', uid: 'u-1' }).map((e) => e.reason).sort();

describe('fenced store', () => {
  it('lets calls through while the lease holds, and leaves the commit group and the leases unfenced', () => {
    const fenced = fencedStore(store, fence);
    fenced.events.append(event('Created'));
    fenced.operations.begin('u-1', 'create', 'key-1');
    expect(reasons(store)).toEqual(['Created']);
    expect(store.operations.get('u-1', 'create')?.idempotencyKey).toBe('key-1');
    expect(fenced.commits).toBe(store.commits);
    expect(fenced.shardLeases).toBe(store.shardLeases);
    expect(fenced.dataDir).toBe(dataDir);
  });

  it('refuses a write inside an open commit group once the shard is given back, keeping the group\'s earlier writes', () => {
    const fenced = fencedStore(store, fence);
    store.commits.begin();
    fenced.events.append(event('Before'));
    store.shardLeases.handBack('me', [{ shard: fence.shard, token: fence.token }]);
    expect(() => fenced.operations.begin('u-1', 'create', 'key-1')).toThrow(FencedWriteError);
    expect(() => fenced.transaction(() => store.events.append(event('Inside')))).toThrow(FencedWriteError);
    store.commits.commitNow();
    expect(reasons(store)).toEqual(['Before']);
    expect(store.operations.get('u-1', 'create')).toBeUndefined();
  });

  it('refuses every call once another replica took the shard, naming it', () => {
    const fenced = fencedStore(store, fence);
    store.shardLeases.handBack('me', [{ shard: fence.shard, token: fence.token }]);
    const other = Store.open(dataDir);
    try {
      expect(other.shardLeases.pass('other', [], TTL).gained.map((g) => g.shard)).toContain(fence.shard);
      expect(() => fenced.events.append(event('Late'))).toThrow(`no longer holds shard ${fence.shard} (its token ${fence.token}); it is held by other`);
      expect(() => fenced.resources.get('u-1')).toThrow(FencedWriteError);
      expect(reasons(other)).toEqual([]);
    } finally {
      other.close();
    }
  });
});
