/**
 * @module Controller mode survives losing its pod (issue #22, item 9): the custom resource is the
 * record. Against a fake Kubernetes API server and a sandbox cloud in its own process (so the
 * vendor outlives every data dir): 50 servers are made, the vendor id is written back as
 * `cairn.dev/external-id`, the data dir is deleted, and a new instance adopts them all — no new
 * creates, no deletes at the vendor. A custom resource deleted while no data dir knows it is
 * deleted at the vendor before its finalizer comes off. Lost before any id was written back, the
 * record is still not needed: idempotency keys derive from the custom resources' uids, so the
 * retried creates return the first servers. A server a user imported by annotating its
 * custom resource stays an import (left at the vendor when deleted) after the data dir is lost. A
 * watch that missed an object is healed by the periodic relist.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AnyStoredResource } from '../../src/model/resource.js';
import { Controller } from '../../src/reconcile/controller.js';
import { clusterFrom } from '../../src/sources/kubernetes/cluster.js';
import { KubernetesMode } from '../../src/sources/kubernetes/kubernetes-mode.js';
import { Store } from '../../src/store/store.js';
import { startSandboxCloudProcess, type SandboxCloudProcess } from '../support/cairn-process.js';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../support/fake-kube-apiserver.js';
import { until as untilRead } from '../support/until.js';
import { inventory } from '../support/vendor-inventory.js';

let root: string;
let cloud: SandboxCloudProcess;
let api: FakeKubeApiServer | undefined;
const instances: Instance[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-controller-record-'));
  cloud = await startSandboxCloudProcess(['--data-dir', join(root, 'cloud'), '--provision-ms', '50']);
}, 60_000);

afterAll(async () => {
  await cloud.stop();
  rmSync(root, { recursive: true, force: true });
});

afterEach(async () => {
  for (const instance of instances.splice(0)) await instance.stop();
  await api?.close();
  api = undefined;
});

interface Instance {
  store: Store;
  logs: string[];
  stop(): Promise<void>;
}

/** One cairn replica in controller mode on `dataDir`, as `serve --kubernetes` runs it. */
function startInstance(server: FakeKubeApiServer, dataDir: string, identity: string, relistMs?: number, writebackMs = 50): Instance {
  const store = Store.open(dataDir);
  const controller = new Controller(store, { dataDir, pollMs: 50, feedIntervalMs: 20, resyncMs: { Provider: 500, Server: 500, Database: 500, App: 500 } });
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser({ name: 'test', server: server.url, skipTLSVerify: true }, { name: 'cairn', token: 'test' });
  const logs: string[] = [];
  let reconciling = false;
  const mode = new KubernetesMode(store, clusterFrom(kc), { tenant: 'default', identity, leaseDurationSeconds: 1, renewMs: 100, pollMs: writebackMs, ...(relistMs === undefined ? {} : { relistMs }) }, {
    startReconciling: () => {
      reconciling = true;
      controller.start();
    },
    stopReconciling: async () => {
      if (reconciling) await controller.stop();
      reconciling = false;
    },
    afterWrite: () => controller.readFeed(),
    log: (line) => logs.push(line),
  });
  mode.start();
  let stopped = false;
  const instance: Instance = {
    store,
    logs,
    async stop() {
      if (stopped) return;
      stopped = true;
      await mode.stop();
      if (reconciling) await controller.stop();
      store.close();
    },
  };
  instances.push(instance);
  return instance;
}

/** Polls `check` until it holds. */
const until = (what: string, check: () => boolean, timeoutMs: number): Promise<boolean> => untilRead(what, () => Promise.resolve(check()), (ok) => ok, timeoutMs);

const cr = (kind: string, name: string, spec: Record<string, unknown>) => ({ apiVersion: 'cairn.dev/v1', kind, metadata: { name }, spec });
const serverCr = (name: string) => cr('Server', name, { provider: 'sandbox', region: 'eu-1', size: 'small' });
const annotationOf = (server: FakeKubeApiServer, name: string): string | undefined =>
  (server.get(`servers/default/${name}`)?.metadata.annotations as Record<string, string> | undefined)?.['cairn.dev/external-id'];
const phaseOf = (server: FakeKubeApiServer, name: string): string | undefined => (server.get(`servers/default/${name}`)?.status as { phase?: string } | undefined)?.phase;
const liveServers = async (): Promise<Array<{ id: string; name: string }>> => (await inventory(cloud.url)).servers.filter((s) => s.status !== 'deleted' && s.status !== 'deleting');
const isReady = (r: AnyStoredResource | undefined): boolean => r?.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True') === true;
const names = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);

describe('controller mode with a lost data dir', () => {
  it('adopts the 50 servers the first instance made: no new creates and no deletes at the vendor', async () => {
    api = await startFakeKubeApiServer();
    const server = api;
    const servers = names('fleet', 50);
    server.create('providers', 'default', cr('Provider', 'sandbox', { vendor: 'sandbox', endpoint: cloud.url }));
    for (const name of servers) server.create('servers', 'default', serverCr(name));

    const dataDir = join(root, 'fleet-state');
    const first = startInstance(server, dataDir, 'replica-1');
    await until('all 50 running, each with its vendor id written back', () => servers.every((n) => phaseOf(server, n) === 'running' && annotationOf(server, n) !== undefined), 60_000);
    const madeByFirst = (await liveServers()).filter((s) => s.name.startsWith('fleet-'));
    expect(madeByFirst).toHaveLength(50);
    expect(new Set(servers.map((n) => annotationOf(server, n)))).toEqual(new Set(madeByFirst.map((s) => s.id)));

    await first.stop();
    rmSync(dataDir, { recursive: true, force: true });

    const second = startInstance(server, dataDir, 'replica-2');
    const stored = (n: string): AnyStoredResource | undefined => second.store.resources.find('default', { kind: 'Server', namespace: 'default', name: n });
    await until('the new instance to hold all 50, ready', () => servers.every((n) => isReady(stored(n)) && stored(n)?.status.externalId === annotationOf(server, n)), 60_000);
    // A few resyncs later, still the same servers at the vendor.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const afterwards = (await liveServers()).filter((s) => s.name.startsWith('fleet-'));
    expect(afterwards.map((s) => s.id).sort()).toEqual(madeByFirst.map((s) => s.id).sort());
    const reasons = new Set(second.store.events.list({ tenant: 'default', limit: 1_000 }).map((e) => e.reason));
    expect(reasons.has('Adopted')).toBe(true);
    expect(reasons.has('Created')).toBe(false);
    expect(reasons.has('Imported')).toBe(false);
    // Adopted as cairn's own, so deleting them still deletes at the vendor (not an import's Orphan).
    expect(stored('fleet-00')?.status.details?.imported).toBeUndefined();
  }, 150_000);

  it('deletes at the vendor a server whose custom resource was deleted while no data dir knew it, before the finalizer comes off', async () => {
    api = await startFakeKubeApiServer();
    const server = api;
    server.create('providers', 'default', cr('Provider', 'sandbox', { vendor: 'sandbox', endpoint: cloud.url }));
    server.create('servers', 'default', serverCr('doomed'));
    const dataDir = join(root, 'doomed-state');
    const first = startInstance(server, dataDir, 'replica-1');
    await until('doomed running with its id written back', () => phaseOf(server, 'doomed') === 'running' && annotationOf(server, 'doomed') !== undefined, 30_000);
    const id = annotationOf(server, 'doomed');
    await first.stop();
    rmSync(dataDir, { recursive: true, force: true });

    server.delete('servers', 'default', 'doomed');
    expect(server.get('servers/default/doomed')?.metadata.finalizers).toEqual(['cairn.dev/finalizer']);
    startInstance(server, dataDir, 'replica-2');
    await until('the custom resource gone', () => server.get('servers/default/doomed') === undefined, 30_000);
    expect((await liveServers()).map((s) => s.id)).not.toContain(id);
  }, 90_000);
});

describe('controller mode losing its data dir before the vendor ids were written back', () => {
  it('gets the same servers back by their idempotency keys, derived from the custom resources: no second server', async () => {
    api = await startFakeKubeApiServer();
    const server = api;
    const servers = names('early', 5);
    server.create('providers', 'default', cr('Provider', 'sandbox', { vendor: 'sandbox', endpoint: cloud.url }));
    for (const name of servers) server.create('servers', 'default', serverCr(name));
    const dataDir = join(root, 'early-state');
    // Its write-back never runs: the servers are made, but the custom resources never learn their ids.
    const first = startInstance(server, dataDir, 'replica-1', undefined, 600_000);
    const storedIn = (instance: Instance, n: string): AnyStoredResource | undefined => instance.store.resources.find('default', { kind: 'Server', namespace: 'default', name: n });
    await until('all 5 created at the vendor', () => servers.every((n) => storedIn(first, n)?.status.externalId), 30_000);
    const made = (await liveServers()).filter((s) => s.name.startsWith('early-'));
    expect(made).toHaveLength(5);
    expect(servers.every((n) => annotationOf(server, n) === undefined)).toBe(true);
    await first.stop();
    rmSync(dataDir, { recursive: true, force: true });

    const second = startInstance(server, dataDir, 'replica-2');
    await until('all 5 ready again, ids written back', () => servers.every((n) => isReady(storedIn(second, n)) && annotationOf(server, n) !== undefined), 30_000);
    const afterwards = (await liveServers()).filter((s) => s.name.startsWith('early-'));
    expect(afterwards.map((s) => s.id).sort()).toEqual(made.map((s) => s.id).sort());
  }, 90_000);
});

describe('controller mode with an imported server', () => {
  it('imports by the annotation a user put on the custom resource, stays an import after the data dir is lost, and leaves the server at the vendor when deleted', async () => {
    api = await startFakeKubeApiServer();
    const server = api;
    const made = await fetch(`${cloud.url}/v1/servers`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'by-hand', region: 'eu-1', size: 'small', image: 'debian-12' }),
    });
    const id = ((await made.json()) as { server: { id: string } }).server.id;
    server.create('providers', 'default', cr('Provider', 'sandbox', { vendor: 'sandbox', endpoint: cloud.url }));
    server.create('servers', 'default', { ...serverCr('by-hand'), metadata: { name: 'by-hand', annotations: { 'cairn.dev/external-id': id } } });
    const dataDir = join(root, 'imported-state');
    const first = startInstance(server, dataDir, 'replica-1');
    await until('by-hand running', () => phaseOf(server, 'by-hand') === 'running', 30_000);
    expect(server.get('servers/default/by-hand')?.status).toMatchObject({ externalId: id, details: { imported: true } });
    await first.stop();
    rmSync(dataDir, { recursive: true, force: true });

    const second = startInstance(server, dataDir, 'replica-2');
    const stored = (): AnyStoredResource | undefined => second.store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'by-hand' });
    await until('by-hand imported again', () => isReady(stored()), 30_000);
    expect(stored()?.status.details?.imported).toBe(true);
    server.delete('servers', 'default', 'by-hand');
    await until('the custom resource gone', () => server.get('servers/default/by-hand') === undefined, 30_000);
    expect((await liveServers()).map((s) => s.id)).toContain(id);
    expect((await liveServers()).filter((s) => s.name === 'by-hand')).toHaveLength(1);
  }, 90_000);
});

describe('controller mode watches', () => {
  it('relists periodically, so an object a watch missed is still synced', async () => {
    api = await startFakeKubeApiServer();
    const server = api;
    const instance = startInstance(server, join(root, 'relist-state'), 'replica-1', 300);
    server.create('providers', 'default', cr('Provider', 'sandbox', { vendor: 'sandbox', endpoint: cloud.url }));
    await until('the provider synced', () => instance.store.resources.find('default', { kind: 'Provider', namespace: 'default', name: 'sandbox' }) !== undefined, 10_000);
    server.createUnseen('servers', 'default', serverCr('missed'));
    await until('the missed server synced by a relist', () => instance.store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'missed' }) !== undefined, 10_000);
    expect(server.get('servers/default/missed')?.metadata.finalizers).toEqual(['cairn.dev/finalizer']);
  });
});
