/**
 * @module Faults: with 30% of vendor calls failing (5xx, 429 with Retry-After, timeouts, and
 * writes whose answer is lost), everything still converges, the vendor holds exactly one
 * resource per manifest, and the number of vendor calls stays bounded (no hot loop).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxCloud, type SandboxCloud } from '../src/sandbox-cloud/index.js';
import { runCairn } from './support/cairn-process.js';
import { writeStack } from './support/manifests.js';
import { countByName, inventory } from './support/vendor-inventory.js';

let root: string;
let cloud: SandboxCloud;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-faults-'));
  cloud = await startSandboxCloud({ dataDir: join(root, 'cloud'), port: 0, provisionMs: 200, errorRate: 0.3, hangMs: 2_000, seed: 42 });
});
afterAll(async () => {
  await cloud?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a vendor failing 30% of calls', () => {
  it('converges with a bounded number of calls and no duplicates', async () => {
    const stack = writeStack(join(root, 'manifests'), { endpoint: cloud.url, servers: 6, databases: 2, apps: 2 });
    const resources = 1 + stack.servers.length + stack.databases.length + stack.apps.length;
    const result = await runCairn(['apply', '-f', join(root, 'manifests'), '--auto-approve', '--data-dir', join(root, 'state')], {
      env: { CAIRN_VENDOR_TIMEOUT_MS: '500' },
      timeoutMs: 180_000,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(`Apply complete: ${resources} ready.`);

    cloud.setFaults({ errorRate: 0 });
    const world = await inventory(cloud.url);
    expect(countByName(world.servers)).toEqual(Object.fromEntries(stack.servers.map((n) => [n, 1])));
    expect(countByName(world.databases)).toEqual(Object.fromEntries(stack.databases.map((n) => [n, 1])));
    expect(countByName(world.apps)).toEqual(Object.fromEntries(stack.apps.map((n) => [n, 1])));

    const stats = cloud.stats();
    expect(stats.faults).toBeGreaterThan(0);
    // Each resource needs a handful of calls (create, a few polls, retries of the 30% that fail);
    // a hot loop would make thousands.
    expect(stats.requests).toBeLessThan(resources * 25);
  }, 240_000);
});
