/**
 * @module Shard leases shared by replicas on one SQLite file (a Store opened per replica): fair
 * shares, hand-back to a newcomer, takeover after expiry with a larger token, and the fence.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FencedWriteError, SHARDS, shardOf, type HeldShard } from './shard-leases.js';
import { Store } from './store.js';

const TTL = 1_000;
let dataDir: string;
let stores: Store[];

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'cairn-shard-leases-'));
  stores = [];
});
afterEach(() => {
  for (const store of stores) store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A replica: its own Store open on the shared data dir, and what it holds. */
function replica(name: string): { name: string; store: Store; held: HeldShard[]; pass(now: number): ReturnType<Store['shardLeases']['pass']> } {
  const store = Store.open(dataDir);
  stores.push(store);
  const self = {
    name,
    store,
    held: [] as HeldShard[],
    pass(now: number) {
      const result = store.shardLeases.pass(name, self.held, TTL, now);
      self.held = result.held;
      return result;
    },
  };
  return self;
}

const shardsOf = (held: readonly HeldShard[]): number[] => held.map((h) => h.shard).sort((a, b) => a - b);

describe('shard leases', () => {
  it('places every uid in one stable shard within range', () => {
    expect(shardOf('4f1c2a9e-0000-4000-8000-000000000001')).toBe(shardOf('4f1c2a9e-0000-4000-8000-000000000001'));
    const seen = new Set<number>();
    for (let i = 0; i < 2_000; i++) {
      const shard = shardOf(`uid-${i}`);
      expect(shard).toBeGreaterThanOrEqual(0);
      expect(shard).toBeLessThan(SHARDS);
      seen.add(shard);
    }
    expect(seen.size).toBe(SHARDS);
  });

  it('shares the shards fairly between three replicas, each shard held once', () => {
    const now = 1_000_000;
    const [a, b, c] = [replica('a'), replica('b'), replica('c')];
    // All three say they are live before anyone takes shards.
    for (const r of [a, b, c]) r.store.shardLeases.heartbeat(r.name, TTL, now);
    for (const r of [a, b, c]) r.pass(now);
    expect(a.held).toHaveLength(11);
    expect(b.held).toHaveLength(11);
    expect(c.held).toHaveLength(10);
    const all = [...shardsOf(a.held), ...shardsOf(b.held), ...shardsOf(c.held)].sort((x, y) => x - y);
    expect(all).toEqual(Array.from({ length: SHARDS }, (_, i) => i));
    expect(a.store.shardLeases.held('b', now)).toEqual(b.held);
  });

  it('hands shards back to a newcomer, who takes them on its next pass', () => {
    const now = 1_000_000;
    const a = replica('a');
    a.pass(now);
    expect(a.held).toHaveLength(SHARDS);
    const b = replica('b');
    expect(b.pass(now + 10).gained).toEqual([]); // all held by a, none expired
    const handed = a.pass(now + 20);
    expect(handed.handedBack).toHaveLength(16);
    expect(a.held).toHaveLength(16);
    const taken = b.pass(now + 30);
    expect(shardsOf(taken.gained)).toEqual(handed.handedBack.sort((x, y) => x - y));
    // A shard given back and taken again has a new token: a's late write under the old one is refused.
    const moved = handed.handedBack[0] ?? -1;
    expect(taken.gained.find((h) => h.shard === moved)?.token).toBe(2);
    expect(() => a.store.shardLeases.checkFence(moved, 'a', 1, now + 40)).toThrow(FencedWriteError);
  });

  it('lets another replica take the shards of one that stopped renewing, with larger tokens', () => {
    const now = 1_000_000;
    const [a, b] = [replica('a'), replica('b')];
    for (const r of [a, b]) r.store.shardLeases.heartbeat(r.name, TTL, now);
    a.pass(now);
    b.pass(now);
    const before = new Map(a.held.map((h) => [h.shard, h.token]));
    // a goes quiet: before its TTL nothing moves, after it b takes everything.
    expect(b.pass(now + TTL - 1).gained).toEqual([]);
    const later = b.pass(now + TTL + 1);
    expect(shardsOf(later.gained)).toEqual(shardsOf(a.held));
    for (const lease of later.gained) expect(lease.token).toBeGreaterThan(before.get(lease.shard) ?? Infinity);
    expect(b.held).toHaveLength(SHARDS);
    // a comes back: its renewals fail, so it knows it lost them, and it takes nothing (all held).
    const back = a.pass(now + TTL + 2);
    expect(back.lost.sort((x, y) => x - y)).toEqual([...before.keys()].sort((x, y) => x - y));
    expect(back.held).toEqual([]);
  });

  it('refuses a write from a stale holder, a stale token or an expired lease, naming the holder', () => {
    const now = 1_000_000;
    const a = replica('a');
    a.pass(now);
    const lease = a.held[3];
    if (!lease) throw new Error('a holds no shard 3');
    const fences = a.store.shardLeases;
    expect(() => fences.checkFence(lease.shard, 'a', lease.token, now + 1)).not.toThrow();
    expect(() => fences.checkFence(lease.shard, 'b', lease.token, now + 1)).toThrow(FencedWriteError);
    expect(() => fences.checkFence(lease.shard, 'a', lease.token - 1, now + 1)).toThrow(FencedWriteError);
    expect(() => fences.checkFence(lease.shard, 'a', lease.token, now + TTL)).toThrow(/no longer holds shard 3 .*has expired/);
    const b = replica('b');
    b.pass(now + TTL + 1);
    const error = (() => {
      try {
        fences.checkFence(lease.shard, 'a', lease.token, now + TTL + 2);
      } catch (caught) {
        return caught as FencedWriteError;
      }
      throw new Error('the fence let a stale holder write');
    })();
    expect(error.current?.holder).toBe('b');
    expect(error.message).toContain(`it is held by b (pid ${process.pid}`);
  });

  it('gives everything back when a replica leaves', () => {
    const now = Date.now();
    const [a, b] = [replica('a'), replica('b')];
    a.pass(now);
    a.store.shardLeases.leave('a');
    expect(a.store.shardLeases.liveReplicas(now)).toEqual([]);
    expect(b.pass(now + 1).gained).toHaveLength(SHARDS);
  });
});
