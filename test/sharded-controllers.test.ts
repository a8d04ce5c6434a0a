/**
 * @module Three sharded controllers (each with its own Store) reconciling one data dir against a
 * sandbox cloud in one process: they share the shards fairly and converge everything; one that
 * stops without giving its leases back has its shards taken once they expire; one whose leases
 * were taken while it did not renew them writes nothing and sends no create.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AnyStoredResource } from '../src/model/resource.js';
import { Controller } from '../src/reconcile/controller.js';
import { startSandboxCloud, type SandboxCloud } from '../src/sandbox-cloud/index.js';
import { FencedWriteError, SHARDS, shardOf } from '../src/store/shard-leases.js';
import { Store } from '../src/store/store.js';
import { isReady, providerManifest, serverManifest } from './support/reconcile-harness.js';

const TTL = 1_500;

interface Replica {
  store: Store;
  controller: Controller;
  /** The uids this replica finished a reconcile of. */
  reconciled: Set<string>;
  fenced: Array<{ uid: string; error: FencedWriteError }>;
}

let root: string;
let cloud: SandboxCloud;
let dataDir: string;
let replicas: Replica[];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-sharded-'));
  cloud = await startSandboxCloud({ dataDir: join(root, 'cloud'), port: 0, provisionMs: 50 });
});
afterAll(async () => {
  await cloud.close();
  rmSync(root, { recursive: true, force: true });
});
beforeEach(() => {
  dataDir = mkdtempSync(join(root, 'state-'));
  replicas = [0, 1, 2].map(() => replica());
});
afterEach(async () => {
  for (const r of replicas) await r.controller.stop();
  for (const r of replicas) r.store.close();
});

function replica(): Replica {
  const store = Store.open(dataDir);
  const made: Replica = { store, controller: undefined as unknown as Controller, reconciled: new Set(), fenced: [] };
  made.controller = new Controller(store, {
    dataDir,
    sharded: true,
    leaseTtlMs: TTL,
    // Three connections in one thread: an open commit group of one would block the others' writes.
    groupCommits: false,
    pollMs: 50,
    feedIntervalMs: 20,
    resyncMs: { Provider: 500, Server: 500 },
    onReconciled: (resource) => made.reconciled.add(resource.uid),
    onFenced: (resource, error) => made.fenced.push({ uid: resource.uid, error }),
  });
  return made;
}

async function until(what: string, check: () => boolean, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const shardsHeld = (r: Replica): number[] => r.controller.heldShards().map((h) => h.shard);

/** Starts the replicas and waits until they hold 11, 11 and 10 shards (the first takes all, then hands back). */
async function startAll(): Promise<void> {
  for (const r of replicas) r.controller.start();
  await until('a fair share each', () => replicas.map((r) => shardsHeld(r).length).sort().join() === '10,11,11');
}

function applyServers(store: Store, names: readonly string[]): AnyStoredResource[] {
  store.resources.apply('default', 'api', names.map((name) => serverManifest(name)));
  return names.map((name) => {
    const found = store.resources.find('default', { kind: 'Server', namespace: 'default', name });
    if (!found) throw new Error(`Server/${name} was not stored`);
    return found;
  });
}

const allReady = (store: Store, uids: readonly string[]): boolean => uids.every((uid) => {
  const r = store.resources.get(uid);
  return r !== undefined && isReady(r);
});

const creates = (): number => cloud.stats().byRoute['POST /v1/servers'] ?? 0;

describe('sharded controllers', () => {
  it('share the shards fairly, each resource reconciled only by the holder of its shard', async () => {
    await startAll();
    const owner = new Map<number, number>();
    replicas.forEach((r, index) => shardsHeld(r).forEach((shard) => owner.set(shard, index)));
    expect(owner.size).toBe(SHARDS);
    const store = replicas[0]?.store as Store;
    store.resources.apply('default', 'api', [providerManifest(cloud.url)]);
    const provider = store.resources.find('default', { kind: 'Provider', namespace: 'default', name: 'cloud' });
    const servers = applyServers(store, Array.from({ length: 12 }, (_, i) => `web-${i}`));
    const uids = [...servers.map((s) => s.uid), provider?.uid ?? 'no provider'];
    await until('every server to be ready', () => allReady(store, uids));
    for (const uid of uids) {
      const reconciledBy = replicas.flatMap((r, index) => (r.reconciled.has(uid) ? [index] : []));
      expect(reconciledBy).toEqual([owner.get(shardOf(uid))]);
    }
    expect(replicas.flatMap((r) => r.fenced)).toEqual([]);
  });

  it('takes the shards of a replica that stops without giving them back, once they expire, and converges', async () => {
    await startAll();
    const [a, b, gone] = replicas as [Replica, Replica, Replica];
    a.store.resources.apply('default', 'api', [providerManifest(cloud.url)]);
    const orphaned = new Set(shardsHeld(gone));
    await gone.controller.stop({ releaseLeases: false });
    const stoppedAt = Date.now();
    // Its leases run until they expire: nobody takes them early.
    expect(a.store.shardLeases.held(gone.controller.holderId).map((h) => h.shard).sort((x, y) => x - y)).toEqual([...orphaned].sort((x, y) => x - y));
    await until('the others to hold every shard', () => shardsHeld(a).length + shardsHeld(b).length === SHARDS, 3 * TTL);
    // Expired at most one TTL after its last renewal, taken at the next pass of the others (TTL/3); slack for a busy machine.
    expect(Date.now() - stoppedAt).toBeLessThan(2 * TTL);
    expect(shardsHeld(a).length).toBe(16);
    const servers = applyServers(a.store, Array.from({ length: 12 }, (_, i) => `api-${i}`));
    expect(servers.some((s) => orphaned.has(shardOf(s.uid)))).toBe(true);
    await until('every server to be ready', () => allReady(a.store, servers.map((s) => s.uid)));
    for (const s of servers) expect(gone.reconciled.has(s.uid)).toBe(false);
  });

  it('refuses every write of a replica whose leases were taken while it did not renew them, and it sends no create', async () => {
    await startAll();
    const [a, b, paused] = replicas as [Replica, Replica, Replica];
    a.store.resources.apply('default', 'api', [providerManifest(cloud.url)]);
    const stale = new Set(shardsHeld(paused));
    // As if the process were paused (SIGSTOP) past its TTL: its lease passes stop reaching the
    // database, its store's worker renews nothing (a stopped process runs no thread), and it
    // still believes it holds what it held.
    paused.store.shardLeases.renewWhileBusy('paused', undefined, TTL);
    vi.spyOn(paused.store.shardLeases, 'renewWhileBusy').mockImplementation(() => undefined);
    vi.spyOn(paused.store.shardLeases, 'pass').mockImplementation((_holder, held) => ({ held: [...held], gained: [], lost: [], handedBack: [], at: Date.now() }));
    await until('the others to take its shards', () => shardsHeld(a).length + shardsHeld(b).length === SHARDS, 3 * TTL);
    expect(new Set(shardsHeld(paused))).toEqual(stale);
    const statusWrites = vi.spyOn(paused.store.resources, 'writeStatus');
    const eventWrites = vi.spyOn(paused.store.events, 'append');
    const pendingCreates = vi.spyOn(paused.store.operations, 'begin');
    const createsBefore = creates();
    // Servers until three fall in shards the paused replica still believes it holds.
    const servers: AnyStoredResource[] = [];
    for (let i = 0; servers.filter((s) => stale.has(shardOf(s.uid))).length < 3 && i < 60; i++) servers.push(...applyServers(a.store, [`db-host-${i}`]));
    const inStale = servers.filter((s) => stale.has(shardOf(s.uid)));
    expect(inStale).toHaveLength(3);
    await until('every server to be ready', () => allReady(a.store, servers.map((s) => s.uid)));
    await until('the paused replica to have tried', () => paused.fenced.length > 0);
    const { uid, error } = paused.fenced[0] as { uid: string; error: FencedWriteError };
    expect(stale.has(shardOf(uid))).toBe(true);
    expect([a.controller.holderId, b.controller.holderId]).toContain(error.current?.holder);
    expect(error.message).toContain(`shard ${shardOf(uid)}`);
    // Nothing of its reconciles reached the store or the vendor.
    expect(statusWrites).not.toHaveBeenCalled();
    expect(eventWrites).not.toHaveBeenCalled();
    expect(pendingCreates).not.toHaveBeenCalled();
    expect(creates() - createsBefore).toBe(servers.length);
    // The fenced shard is dropped: no retry storm from the paused replica.
    expect(shardsHeld(paused)).not.toContain(shardOf(uid));
    for (const s of inStale) expect(paused.reconciled.has(s.uid)).toBe(false);
  });
});
