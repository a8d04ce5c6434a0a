/**
 * @module The reconcile loop against a real sandbox cloud on loopback, in one process: waits for
 * dependencies, replacement, power state, drift healing, refusal to delete what is used, stalls
 * with the vendor's reason, and adoption of a create that was interrupted after it reached the vendor.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AnyManifest, AnyStoredResource } from '../src/model/resource.js';
import { Controller } from '../src/reconcile/controller.js';
import { idempotencyKey } from '../src/reconcile/idempotency.js';
import { startSandboxCloud, type SandboxCloud } from '../src/sandbox-cloud/index.js';
import { Store } from '../src/store/store.js';
import { inventory } from './support/vendor-inventory.js';

let root: string;
let cloud: SandboxCloud;
let store: Store;
let controller: Controller;
let dataDir: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-reconcile-'));
  cloud = await startSandboxCloud({ dataDir: join(root, 'cloud'), port: 0, provisionMs: 100 });
});
afterAll(async () => {
  await cloud.close();
  rmSync(root, { recursive: true, force: true });
});
beforeEach(() => {
  dataDir = mkdtempSync(join(root, 'state-'));
  store = Store.open(dataDir);
  controller = new Controller(store, { dataDir, pollMs: 50, feedIntervalMs: 20, resyncMs: { Provider: 200, Server: 200, Database: 200, App: 200 } });
});
afterEach(async () => {
  await controller.stop();
  store.close();
});

const provider = (): AnyManifest => ({ apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'cloud' }, spec: { vendor: 'sandbox', endpoint: cloud.url } });
const server = (name: string, spec: Partial<{ region: string; size: string; image: string; state: 'running' | 'stopped' }> = {}): AnyManifest => ({
  apiVersion: 'cairn.dev/v1',
  kind: 'Server',
  metadata: { name },
  spec: { provider: 'cloud', region: 'eu-1', size: 'small', ...spec },
});
const database = (name: string, serverName: string): AnyManifest => ({
  apiVersion: 'cairn.dev/v1',
  kind: 'Database',
  metadata: { name },
  spec: { type: 'postgresql', server: serverName, version: '16', storageGb: 10 },
});

function get(kind: AnyManifest['kind'], name: string): AnyStoredResource {
  const found = store.resources.find('default', { kind, namespace: 'default', name });
  if (!found) throw new Error(`${kind}/${name} is gone`);
  return found;
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const ready = (r: AnyStoredResource): boolean => r.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True') && r.status.observedGeneration === r.generation;
const condition = (r: AnyStoredResource, type: 'Ready' | 'Synced'): { reason: string; message: string } | undefined => r.status.conditions.find((c) => c.type === type);

describe('reconcile loop', () => {
  it('waits for its dependency with reason WaitingForDependency, then converges', async () => {
    store.resources.apply('default', 'api', [server('s-wait'), database('d-wait', 's-wait')]);
    controller.start();
    await until('the database to wait', () => condition(get('Database', 'd-wait'), 'Ready')?.reason === 'WaitingForDependency');
    expect(condition(get('Server', 's-wait'), 'Ready')?.message).toContain('Provider/cloud, which does not exist');
    store.resources.apply('default', 'api', [provider()]);
    await until('the database to be ready', () => ready(get('Database', 'd-wait')));
    expect(get('Database', 'd-wait').status.phase).toBe('available');
    expect(get('Server', 's-wait').status.endpoints?.ipv4).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  });

  it('wakes a waiter when what it waits for becomes Ready, not when any other resource does', async () => {
    const reconciles = new Map<string, number>();
    controller = new Controller(store, {
      dataDir,
      pollMs: 50,
      feedIntervalMs: 20,
      resyncMs: { Provider: 60_000, Server: 60_000, Database: 60_000, App: 60_000 },
      onReconciled: (r) => reconciles.set(r.name, (reconciles.get(r.name) ?? 0) + 1),
    });
    const others = ['s-1', 's-2', 's-3', 's-4'];
    // d-blocked waits for s-blocked, which stalls (no such region) and never becomes Ready.
    store.resources.apply('default', 'api', [provider(), server('s-blocked', { region: 'mars-1' }), database('d-blocked', 's-blocked'), ...others.map((n) => server(n))]);
    controller.start();
    await until('the other servers to be ready', () => others.every((n) => ready(get('Server', n))));
    // Its dependency failed, and it says so (woken when s-blocked failed, not left to its retry).
    await until('d-blocked to say its dependency failed', () => condition(get('Database', 'd-blocked'), 'Ready')?.reason === 'DependencyFailed');
    expect(get('Database', 'd-blocked').status.phase).toBe('error');
    // Its wait, and one look when s-blocked failed; none when the four others became Ready.
    expect(reconciles.get('d-blocked')).toBeLessThanOrEqual(2);
  });

  it('replaces a server whose region changes, leaving exactly one at the vendor', async () => {
    store.resources.apply('default', 'api', [provider(), server('s-move')]);
    controller.start();
    await until('ready', () => ready(get('Server', 's-move')));
    const firstId = get('Server', 's-move').status.externalId;
    store.resources.apply('default', 'api', [server('s-move', { region: 'us-1' })]);
    await until('replaced', () => ready(get('Server', 's-move')) && get('Server', 's-move').status.externalId !== firstId);
    const atVendor = (await inventory(cloud.url)).servers.filter((s) => s.name === 's-move');
    expect(atVendor).toHaveLength(1);
    expect(atVendor[0]?.id).toBe(get('Server', 's-move').status.externalId);
    const reasons = store.events.list({ tenant: 'default', uid: get('Server', 's-move').uid }).map((e) => e.reason);
    expect(reasons).toContain('Replacing');
  });

  it('powers a server off and on to match spec.state', async () => {
    store.resources.apply('default', 'api', [provider(), server('s-power')]);
    controller.start();
    await until('running', () => ready(get('Server', 's-power')));
    store.resources.apply('default', 'api', [server('s-power', { state: 'stopped' })]);
    await until('stopped', () => ready(get('Server', 's-power')) && get('Server', 's-power').status.phase === 'stopped');
    expect((await inventory(cloud.url)).servers.find((s) => s.name === 's-power')?.status).toBe('stopped');
  });

  it('heals drift: a server deleted or resized behind its back is put back and the event says so', async () => {
    store.resources.apply('default', 'api', [provider(), server('s-drift')]);
    controller.start();
    await until('ready', () => ready(get('Server', 's-drift')));
    const id = get('Server', 's-drift').status.externalId ?? '';
    await fetch(`${cloud.url}/v1/servers/${id}`, { method: 'PATCH', headers: { authorization: 'Bearer t', 'content-type': 'application/json' }, body: JSON.stringify({ size: 'large' }) });
    await until('resized back', async () => (await inventory(cloud.url)).servers.find((s) => s.id === id)?.size === 'small');
    await fetch(`${cloud.url}/v1/servers/${id}`, { method: 'DELETE', headers: { authorization: 'Bearer t' } });
    await until('recreated', async () => (await inventory(cloud.url)).servers.some((s) => s.name === 's-drift' && s.id !== id && s.status === 'running'));
    const events = store.events.list({ tenant: 'default', uid: get('Server', 's-drift').uid });
    const drift = events.filter((e) => e.reason === 'DriftDetected').map((e) => e.message);
    expect(drift.some((m) => m.includes('size: large → small'))).toBe(true);
    expect(drift.some((m) => m.includes(`${id} no longer exists`))).toBe(true);
  });

  it('refuses to delete a server a database uses; deletes both when asked together, database first', async () => {
    store.resources.apply('default', 'api', [provider(), server('s-del'), database('d-del', 's-del')]);
    controller.start();
    await until('ready', () => ready(get('Database', 'd-del')));
    expect(() => store.resources.requestDeletion('default', 'api', [{ kind: 'Server', namespace: 'default', name: 's-del' }])).toThrow(/still used by Database\/d-del/);
    store.resources.requestDeletion('default', 'api', [
      { kind: 'Server', namespace: 'default', name: 's-del' },
      { kind: 'Database', namespace: 'default', name: 'd-del' },
    ]);
    await until('both gone', () => store.resources.find('default', { kind: 'Server', namespace: 'default', name: 's-del' }) === undefined);
    const world = await inventory(cloud.url);
    expect(world.servers.some((s) => s.name === 's-del')).toBe(false);
    expect(world.databases.some((d) => d.name === 'd-del')).toBe(false);
  });

  it('stalls with the vendor’s reason on a region it does not have, retries only at its resync, and converges once the spec changes', async () => {
    store.resources.apply('default', 'api', [provider(), server('s-bad', { region: 'mars-1' })]);
    controller.start();
    await until('error', () => get('Server', 's-bad').status.phase === 'error');
    const synced = condition(get('Server', 's-bad'), 'Synced');
    expect(synced?.reason).toBe('VendorRejected');
    expect(synced?.message).toContain('mars-1');
    const before = cloud.stats().requests;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(cloud.stats().requests - before).toBeLessThan(10);
    store.resources.apply('default', 'api', [server('s-bad', { region: 'eu-1' })]);
    await until('fixed', () => ready(get('Server', 's-bad')));
  });

  it('adopts a server whose create reached the vendor before a crash, instead of making a second', async () => {
    store.resources.apply('default', 'api', [provider(), server('s-adopt')]);
    const uid = get('Server', 's-adopt').uid;
    const key = idempotencyKey(uid, 0);
    // The crash: the pending create was recorded and the vendor got the request, but nothing more.
    store.operations.begin(uid, 'create', key);
    await fetch(`${cloud.url}/v1/servers`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 's-adopt', region: 'eu-1', size: 'small', image: 'debian-12', client_token: key }),
    });
    controller.start();
    await until('ready', () => ready(get('Server', 's-adopt')));
    expect((await inventory(cloud.url)).servers.filter((s) => s.name === 's-adopt')).toHaveLength(1);
    expect(store.events.list({ tenant: 'default', uid }).map((e) => e.reason)).toContain('Adopted');
    expect(store.operations.get(uid, 'create')).toBeUndefined();
  });

  it('will not reconcile alongside another holder of the lease', () => {
    controller.start();
    const second = new Controller(store, { dataDir });
    expect(() => second.start()).toThrow(/another cairn process \(pid \d+/);
  });
});
