/**
 * @module Tests of the singletons lease between two replicas on one data dir: the duties run on
 * one only, and move to the other when the holder stops (at once when it gives the lease back,
 * after the TTL when it just vanishes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store.js';
import { fencedStore } from '../reconcile/fenced-store.js';
import { ClusterSingletons, singletonsFence } from './cluster-singletons.js';

const TTL = 300;
let dataDir: string;
let stores: Store[];
let replicas: ClusterSingletons[];
/** Which replicas run the duties now. */
let runningOn: Set<string>;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'cairn-singletons-'));
  stores = [];
  replicas = [];
  runningOn = new Set();
});
afterEach(async () => {
  for (const r of replicas) await r.stop();
  for (const s of stores) s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function replica(name: string): ClusterSingletons {
  const store = Store.open(dataDir);
  stores.push(store);
  const made = new ClusterSingletons(store.leases, name, TTL, {
    start: () => {
      runningOn.add(name);
    },
    stop: () => {
      runningOn.delete(name);
      return Promise.resolve();
    },
  });
  replicas.push(made);
  return made;
}

async function until(what: string, check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('cluster singletons', () => {
  it('run on one replica, and on the other as soon as the first gives the lease back', async () => {
    const [a, b] = [replica('a'), replica('b')];
    a.start();
    b.start();
    expect([...runningOn]).toEqual(['a']);
    expect([a.running, b.running]).toEqual([true, false]);
    await new Promise((resolve) => setTimeout(resolve, TTL * 1.5)); // renewals keep it on a
    expect([...runningOn]).toEqual(['a']);
    await a.stop();
    await until('b to run them', () => runningOn.has('b'));
    expect([...runningOn]).toEqual(['b']);
  });

  it("fence the duties' writes: refused once the lease is another's or has run out, in the write's transaction", async () => {
    const [a, b] = [replica('a'), replica('b')];
    a.start();
    const store = stores[0]!;
    const fenced = fencedStore(store, singletonsFence(store.leases, 'a'));
    const event = { tenant: 'default', uid: 'u1', kind: 'Server', namespace: 'default', name: 'web-1', type: 'Normal', reason: 'Test', message: 'm' } as const;
    fenced.events.append(event); // a holds the lease: the write lands
    expect(store.events.list({ tenant: 'default', uid: 'u1' })).toHaveLength(1);
    await a.stop({ release: false }); // a is paused: it stops renewing
    await new Promise((resolve) => setTimeout(resolve, TTL + 20));
    expect(() => fenced.events.append(event)).toThrow(/write refused: a no longer holds the singletons lease; it ran out, last held by a/);
    b.start();
    expect(b.running).toBe(true);
    expect(() => fenced.events.append(event)).toThrow(/write refused: a no longer holds the singletons lease; it is held by b \(pid \d+ on .+\)/);
    expect(store.events.list({ tenant: 'default', uid: 'u1' })).toHaveLength(1);
  });

  it('move to another replica once the lease of one that vanished expires', async () => {
    const [a, b] = [replica('a'), replica('b')];
    a.start();
    b.start();
    const vanishedAt = Date.now();
    await a.stop({ release: false });
    await until('b to run them', () => runningOn.has('b'));
    expect(Date.now() - vanishedAt).toBeGreaterThanOrEqual(TTL - 20);
  });
});
