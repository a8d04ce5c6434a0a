/** @module Tests of durableBeforeCalls: no vendor call before what was written ahead of it is committed, and the writes after it join a new group. */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStoreWithReader, SANDBOX_PROVIDER } from '../store/store-with-reader.fixture.js';
import { Store } from '../store/store.js';
import { durableBeforeCalls } from './durable-drivers.js';

const provider = SANDBOX_PROVIDER;

let store: Store;
let other: Database.Database;
let close: () => void;
beforeEach(() => {
  ({ store, other, close } = openStoreWithReader('cairn-durable-drivers-'));
});
afterEach(() => close());

/** A vendor double that notes, at each create, whether another connection already sees the pending create. */
function recordingDriver(uid: string): { driver: { vendor: string; servers: { create(key: string): Promise<{ id: string }> } }; seenAtCall: boolean[] } {
  const seenAtCall: boolean[] = [];
  const driver = {
    vendor: 'double',
    servers: {
      create(key: string): Promise<{ id: string }> {
        seenAtCall.push(other.prepare('SELECT 1 FROM pending_operations WHERE uid = ? AND idempotency_key = ?').get(uid, key) !== undefined);
        return Promise.resolve({ id: `srv-${key}` });
      },
    },
  };
  return { driver, seenAtCall };
}

describe('durableBeforeCalls', () => {
  it('makes a vendor call only once the pending create written before it is committed', async () => {
    const uid = store.resources.apply('default', 'test', [provider]).results[0]?.uid ?? '';
    const { driver, seenAtCall } = recordingDriver(uid);
    const guarded = durableBeforeCalls(driver, store.commits);

    store.commits.begin(); // as the controller does at the start of a reconcile
    store.operations.begin(uid, 'create', 'key-1');
    const created = await guarded.servers.create('key-1');

    expect(created).toEqual({ id: 'srv-key-1' });
    expect(seenAtCall).toEqual([true]);
    expect(guarded.vendor).toBe('double');
  });

  it('the unguarded double would have seen nothing: the group was still open', async () => {
    const uid = store.resources.apply('default', 'test', [provider]).results[0]?.uid ?? '';
    const { driver, seenAtCall } = recordingDriver(uid);
    store.commits.begin();
    store.operations.begin(uid, 'create', 'key-1');
    await driver.servers.create('key-1');
    expect(seenAtCall).toEqual([false]);
    await store.commits.committed();
  });

  it('with a barrier that cannot open groups (outside the reconcile loop), still waits for the commit but leaves no group open', async () => {
    const uid = store.resources.apply('default', 'test', [provider]).results[0]?.uid ?? '';
    const { driver, seenAtCall } = recordingDriver(uid);
    const guarded = durableBeforeCalls(driver, { committed: () => store.commits.committed() });
    store.commits.begin();
    store.operations.begin(uid, 'create', 'key-2');
    await guarded.servers.create('key-2');
    expect(seenAtCall).toEqual([true]);
    expect(store.commits.open).toBe(false);
  });

  it('opens a group when the call returns, so the writes after it are grouped, also after a failed call', async () => {
    const guarded = durableBeforeCalls({ ok: () => Promise.resolve(1), fails: () => Promise.reject(new Error('vendor says no')) }, store.commits);
    expect(await guarded.ok()).toBe(1);
    expect(store.commits.open).toBe(true);
    await store.commits.committed();
    await expect(guarded.fails()).rejects.toThrow('vendor says no');
    expect(store.commits.open).toBe(true);
  });
});
