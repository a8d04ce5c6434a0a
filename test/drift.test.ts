/**
 * @module Drift against a real sandbox cloud on loopback: a server powered off or resized at the
 * vendor behind cairn's back is put back within the resync interval, with a DriftDetected event;
 * with `cairn.dev/self-heal: "false"` the same changes are reported (Synced False) and left alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AnyManifest, AnyStoredResource } from '../src/model/resource.js';
import { Controller } from '../src/reconcile/controller.js';
import { startSandboxCloud, type SandboxCloud } from '../src/sandbox-cloud/index.js';
import { Store } from '../src/store/store.js';
import { inventory } from './support/vendor-inventory.js';

const RESYNC_MS = 300;
let root: string;
let cloud: SandboxCloud;
let store: Store;
let controller: Controller;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-drift-'));
  cloud = await startSandboxCloud({ dataDir: join(root, 'cloud'), port: 0, provisionMs: 50 });
});
afterAll(async () => {
  await cloud.close();
  rmSync(root, { recursive: true, force: true });
});
beforeEach(() => {
  const dataDir = mkdtempSync(join(root, 'state-'));
  store = Store.open(dataDir);
  // Only servers are looked at this often: the per-kind interval is what heals them.
  controller = new Controller(store, { dataDir, pollMs: 50, feedIntervalMs: 20, resyncMs: { Server: RESYNC_MS } });
});
afterEach(async () => {
  await controller.stop();
  store.close();
});

const provider = (): AnyManifest => ({ apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'sandbox' }, spec: { vendor: 'sandbox', endpoint: cloud.url } });
const server = (name: string, annotations: Record<string, string> = {}): AnyManifest => ({
  apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name, annotations }, spec: { provider: 'sandbox', region: 'eu-1', size: 'small' },
});
const get = (name: string): AnyStoredResource => store.resources.find('default', { kind: 'Server', namespace: 'default', name })!;
const vendorServer = async (id: string): Promise<{ size: string; status: string } | undefined> => (await inventory(cloud.url)).servers.find((s) => s.id === id);
const atVendor = (id: string, path: string, body: unknown, method = 'POST'): Promise<Response> =>
  fetch(`${cloud.url}/v1/servers/${id}${path}`, { method, headers: { authorization: 'Bearer t', 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function running(name: string, annotations?: Record<string, string>): Promise<string> {
  store.resources.apply('default', 'api', [provider(), server(name, annotations)]);
  controller.start();
  await until(`${name} running`, () => get(name).status.phase === 'running' && get(name).status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'));
  return get(name).status.externalId ?? '';
}

const driftEvents = (name: string): string[] => store.events.list({ tenant: 'default', uid: get(name).uid }).filter((e) => e.reason === 'DriftDetected').map((e) => e.message);

describe('drift', () => {
  it('powers a server switched off at the vendor back on, and records why', async () => {
    const id = await running('web-power');
    await atVendor(id, '/actions', { type: 'power_off' });
    await until('powered back on', async () => driftEvents('web-power').length > 0 && (await vendorServer(id))?.status === 'running');
    expect(driftEvents('web-power')).toContain('changed outside cairn: power: off → on; putting it back');
  });

  it('puts back a size changed at the vendor', async () => {
    const id = await running('web-size');
    await atVendor(id, '', { size: 'large' }, 'PATCH');
    await until('resized back', async () => (await vendorServer(id))?.size === 'small');
    expect(driftEvents('web-size').some((m) => m.includes('size: large → small'))).toBe(true);
  });

  it('with self-heal off, reports a resize and a power-off and leaves them alone', async () => {
    const id = await running('web-report', { 'cairn.dev/self-heal': 'false' });
    await atVendor(id, '', { size: 'large' }, 'PATCH');
    const synced = (): { status: string; message: string } | undefined => get('web-report').status.conditions.find((c) => c.type === 'Synced');
    await until('the resize reported', () => synced()?.status === 'False' && synced()!.message.includes('size: large → small'));
    expect(synced()?.message).toBe('changed outside cairn: size: large → small (self-heal is off)');
    expect((await vendorServer(id))?.size).toBe('large');

    // Resized back by hand, then powered off: reported in turn, and it stays off.
    await atVendor(id, '', { size: 'small' }, 'PATCH');
    await until('the report cleared', () => synced()?.status === 'True');
    await atVendor(id, '/actions', { type: 'power_off' });
    await until('the power-off reported', () => synced()?.message === 'changed outside cairn: power: off → on (self-heal is off)');
    expect(get('web-report').status.phase).toBe('stopped');
    expect((await vendorServer(id))?.status).toBe('stopped');
    expect(driftEvents('web-report')).toEqual([]);
  });
});
