/** @module Tests of the commit group: many writes in one commit, invisible to other connections until it commits, and committed when asked, when due or when the store closes. */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStoreWithReader, SANDBOX_PROVIDER } from './store-with-reader.fixture.js';
import { Store } from './store.js';

const provider = SANDBOX_PROVIDER;

let store: Store;
let other: Database.Database;
let close: () => void;
beforeEach(() => {
  ({ store, other, close } = openStoreWithReader('cairn-commit-group-'));
});
afterEach(() => close());

const eventsSeenElsewhere = (): number => (other.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;
const pendingSeenElsewhere = (uid: string): boolean => other.prepare('SELECT 1 FROM pending_operations WHERE uid = ?').get(uid) !== undefined;

function appendEvent(uid: string, message: string): void {
  store.events.append({ tenant: 'default', uid, kind: 'Provider', namespace: 'default', name: 'sandbox', type: 'Normal', reason: 'Test', message });
}

describe('CommitGroup', () => {
  it('puts every write made while it is open into one commit, which other connections see only once committed()', async () => {
    const uid = store.resources.apply('default', 'test', [provider]).results[0]?.uid ?? '';
    const before = store.commits.commits;
    store.commits.begin();
    for (let i = 0; i < 50; i++) appendEvent(uid, `event ${i}`);
    store.operations.begin(uid, 'create', 'key-1');
    expect(eventsSeenElsewhere()).toBe(0);
    expect(pendingSeenElsewhere(uid)).toBe(false);
    expect(store.events.list({ tenant: 'default' })).toHaveLength(50); // this connection reads its own writes

    await store.commits.committed();
    expect(store.commits.open).toBe(false);
    expect(store.commits.commits).toBe(before + 1);
    expect(eventsSeenElsewhere()).toBe(50);
    expect(pendingSeenElsewhere(uid)).toBe(true);
  });

  it('rolls back only the write that failed, not the rest of the group', async () => {
    const uid = store.resources.apply('default', 'test', [provider]).results[0]?.uid ?? '';
    store.commits.begin();
    appendEvent(uid, 'kept');
    expect(() =>
      store.transaction(() => {
        appendEvent(uid, 'undone');
        throw new Error('refused');
      }),
    ).toThrow('refused');
    await store.commits.committed();
    expect(other.prepare('SELECT message FROM events').all()).toEqual([{ message: 'kept' }]);
  });

  it('commits by itself a few milliseconds after it opened, without anyone waiting', async () => {
    const uid = store.resources.apply('default', 'test', [provider]).results[0]?.uid ?? '';
    store.commits.begin();
    appendEvent(uid, 'due');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(store.commits.open).toBe(false);
    expect(eventsSeenElsewhere()).toBe(1);
  });

  it('resolves committed() at once when no group is open: writes outside a group commit on their own', async () => {
    const uid = store.resources.apply('default', 'test', [provider]).results[0]?.uid ?? '';
    appendEvent(uid, 'alone');
    expect(eventsSeenElsewhere()).toBe(1);
    await store.commits.committed();
    expect(store.commits.open).toBe(false);
  });

  it('commits an open group when the store closes', () => {
    const uid = store.resources.apply('default', 'test', [provider]).results[0]?.uid ?? '';
    store.commits.begin();
    appendEvent(uid, 'at close');
    store.close();
    expect(eventsSeenElsewhere()).toBe(1);
  });
});
