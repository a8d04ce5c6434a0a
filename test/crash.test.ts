/**
 * @module Crash safety: `cairn apply` against a separate `cairn sandbox-cloud` process is killed
 * with SIGKILL at random moments, again and again; after each restart the vendor holds exactly
 * one resource per manifest, and a last apply converges everything.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, runCairn, spawnCairn, startSandboxCloudProcess, type SandboxCloudProcess } from './support/cairn-process.js';
import { writeStack } from './support/manifests.js';
import { crashSeed, seededRandom } from './support/seeded-random.js';
import { countByName, inventory } from './support/vendor-inventory.js';

const KILLS = Number(process.env.CAIRN_CRASH_KILLS ?? 20);

let root: string;
let cloud: SandboxCloudProcess;
let stack: ReturnType<typeof writeStack>;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-crash-'));
  cloud = await startSandboxCloudProcess(['--data-dir', join(root, 'cloud'), '--provision-ms', '400', '--latency-ms', '60']);
  stack = writeStack(join(root, 'manifests'), { endpoint: cloud.url, servers: 8, databases: 3, apps: 2 });
});
afterAll(async () => {
  await cloud?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('SIGKILL during apply and delete', () => {
  it(`never leaks or duplicates a vendor resource over ${KILLS} kills, then converges`, async () => {
    const seed = crashSeed(`crash test against the sandbox cloud, ${KILLS} kills`);
    const random = seededRandom(seed);
    const dataDir = join(root, 'state');
    const dir = join(root, 'manifests');
    const sizes = ['small', 'medium', 'large'];
    let landed = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      // Give every run real work: resize the servers, or delete the databases and apps, so the
      // kill lands while vendor calls are in flight.
      const deleting = random() < 0.3;
      if (!deleting) writeStack(dir, { endpoint: cloud.url, servers: 8, databases: 3, apps: 2, size: sizes[kill % 3] });
      const args = deleting
        ? ['delete', '-f', join(dir, 'apps.yaml'), join(dir, 'databases.yaml'), '--auto-approve', '--data-dir', dataDir]
        : ['apply', '-f', dir, '--auto-approve', '--data-dir', dataDir];
      const child = spawnCairn(args, { env: { CAIRN_PER_PROVIDER: '2' } });
      const done = collect(child, { timeoutMs: 60_000 });
      // Half the kills come at a random moment; the others a random moment after the command
      // starts reconciling (its first progress line), when vendor calls are surely in flight.
      const delay = Math.floor(random() * 400);
      let timer: NodeJS.Timeout | undefined;
      if (random() < 0.5) {
        timer = setTimeout(() => child.kill('SIGKILL'), 300 + delay * 5);
      } else {
        child.stdout?.on('data', (chunk: Buffer) => {
          if (timer === undefined && /: (pending|provisioning|creating|deploying|deleting|running|available)/.test(chunk.toString())) {
            timer = setTimeout(() => child.kill('SIGKILL'), delay);
          }
        });
      }
      const result = await done;
      clearTimeout(timer);
      if (result.signal === 'SIGKILL') landed++;
      const world = await inventory(cloud.url);
      for (const [label, items] of [['servers', world.servers], ['databases', world.databases], ['apps', world.apps]] as const) {
        const duplicates = Object.entries(countByName(items)).filter(([, n]) => n > 1);
        expect(duplicates, `seed ${seed}, run ${kill} (${args[0]}) killed at ${delay} ms: duplicate ${label}`).toEqual([]);
      }
    }
    expect(landed, `seed ${seed}: kills that interrupted a running command`).toBeGreaterThanOrEqual(Math.ceil(KILLS / 2));

    writeStack(dir, { endpoint: cloud.url, servers: 8, databases: 3, apps: 2, size: 'large' });
    const final = await runCairn(['apply', '-f', dir, '--auto-approve', '--data-dir', dataDir], { timeoutMs: 120_000 });
    expect(final.stderr, `seed ${seed}`).toBe('');
    expect(final.code, `seed ${seed}: ${final.stdout}`).toBe(0);
    expect(final.stdout).toContain(`Apply complete: ${1 + stack.servers.length + stack.databases.length + stack.apps.length} ready.`);
    const world = await inventory(cloud.url);
    expect(countByName(world.servers), `seed ${seed}: servers after the last apply`).toEqual(Object.fromEntries(stack.servers.map((n) => [n, 1])));
    expect(countByName(world.databases), `seed ${seed}: databases after the last apply`).toEqual(Object.fromEntries(stack.databases.map((n) => [n, 1])));
    expect(countByName(world.apps), `seed ${seed}: apps after the last apply`).toEqual(Object.fromEntries(stack.apps.map((n) => [n, 1])));
    expect(world.servers.every((s) => s.status === 'running' && s.size === 'large')).toBe(true);
  }, 600_000);
});
