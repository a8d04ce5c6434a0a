/**
 * @module The sync loop against a real store and a recording syncer: every source is synced at
 * start, again once its interval has passed, at once when asked, never twice at the same time
 * (a request during a sync runs another right after), and a suspended one only when asked; a
 * store that refuses a scan (a lease lost) is told about, never thrown out of a timer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fencedStore } from '../reconcile/fenced-store.js';
import { Store } from '../store/store.js';
import type { SyncReport } from './source-sync.js';
import { SourceSyncLoop, type SourceSync } from './sync-loop.js';

let dir: string;
let store: Store;
let loop: SourceSyncLoop;

/** Records each sync as an attempt (as the real one does) and can be held open. */
class RecordingSync implements SourceSync {
  readonly calls: string[] = [];
  running = 0;
  maxRunning = 0;
  private release: (() => void) | undefined;
  hold = false;

  async sync(id: string): Promise<SyncReport> {
    this.calls.push(id);
    this.running += 1;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    if (this.hold) await new Promise<void>((resolve) => (this.release = resolve));
    store.sources.recordSync(id, { attemptedRevision: null, conditions: [], errors: [], orphans: [], conflicts: [] });
    this.running -= 1;
    return { sourceId: id, result: 'unchanged', message: '' };
  }

  finish(): void {
    this.hold = false;
    this.release?.();
  }
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const add = (name: string, intervalSeconds: number, suspended = false): string =>
  store.sources.create('default', { name, url: 'https://git.invalid/x.git', ref: 'main', path: '', intervalSeconds, prune: true, suspended }, 'secret').id;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-syncloop-'));
  store = Store.open(dir);
});
afterEach(async () => {
  await loop.stop();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SourceSyncLoop', () => {
  it('syncs each source at start and again after its interval', async () => {
    const fast = add('fast', 1);
    const slow = add('slow', 3600);
    const sync = new RecordingSync();
    loop = new SourceSyncLoop(store, sync, { scanMs: 20 });
    loop.start();
    await until('both synced once', () => sync.calls.includes(fast) && sync.calls.includes(slow));
    await until('fast synced again after its interval', () => sync.calls.filter((c) => c === fast).length >= 2);
    expect(sync.calls.filter((c) => c === slow)).toHaveLength(1);
  });

  it('syncs at once when asked, and a request during a sync runs one more right after, never two at once', async () => {
    const id = add('asked', 3600);
    const sync = new RecordingSync();
    loop = new SourceSyncLoop(store, sync, { scanMs: 20 });
    loop.start();
    await until('the first sync', () => sync.calls.length === 1);
    sync.hold = true;
    loop.trigger(id);
    await until('the asked-for sync to start', () => sync.calls.length === 2);
    loop.trigger(id);
    loop.trigger(id);
    sync.finish();
    await until('one more sync', () => sync.calls.length >= 3 && sync.running === 0);
    loop.scan(); // would start any sync still owed
    expect(sync.calls).toHaveLength(3);
    expect(sync.maxRunning).toBe(1);
  });

  it('leaves a suspended source alone until asked', async () => {
    const id = add('paused', 1, true);
    const sync = new RecordingSync();
    loop = new SourceSyncLoop(store, sync, { scanMs: 20 });
    loop.start();
    // The first scan takes note of the source without syncing it; asking syncs it (which records it as suspended).
    loop.scan();
    expect(sync.calls).toEqual([]);
    loop.trigger(id);
    await until('the asked-for sync', () => sync.calls.length === 1);
  });
});

describe('the sync loop on a store that refuses it', () => {
  it('tells about a refused scan, on start and on its timer, and scans again once the store takes it', async () => {
    const id = add('refused', 3600);
    let refusing = true;
    const fenced = fencedStore(store, { check: () => { if (refusing) throw new Error('write refused: the singletons lease is another replica’s'); } });
    const errors: string[] = [];
    const sync = new RecordingSync();
    loop = new SourceSyncLoop(fenced, sync, { scanMs: 20, onError: (where, error) => errors.push(`${where}: ${(error as Error).message}`) });
    loop.start(); // the first scan is refused: no throw out of start()
    await until('a refused scan on the timer too', () => errors.length >= 2);
    expect(errors[0]).toBe('(every source): write refused: the singletons lease is another replica’s');
    expect(sync.calls).toEqual([]);
    refusing = false;
    await until('the source synced', () => sync.calls.includes(id));
    loop.scanNow(); // asked for at once: no throw either way
    expect(sync.calls).toEqual([id]);
  });
});
