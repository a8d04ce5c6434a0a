/**
 * @module Crash safety at DigitalOcean (its double): `cairn apply` and `cairn delete` of eight
 * servers killed with SIGKILL at seeded random moments (`CAIRN_CRASH_SEED` replays). DigitalOcean
 * takes no client token, so this proves the tag idempotency: after every kill no server name
 * is held twice at the vendor, a last apply converges to exactly one of each, and a delete leaves
 * none behind (a create whose answer was lost is found by its tag, not leaked).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { collect, runCairn, spawnCairn } from '../support/cairn-process.js';
import { crashSeed, seededRandom } from '../support/seeded-random.js';
import { startDigitalOceanDouble, type DigitalOceanDouble } from '../doubles/digitalocean.js';

const KILLS = Number(process.env.CAIRN_CRASH_KILLS ?? 12);
const NAMES = Array.from({ length: 8 }, (_, i) => `web-${i + 1}`);
const TOKEN = 'digitalocean-crash-token';
const root = mkdtempSync(join(tmpdir(), 'cairn-digitalocean-crash-'));
const dir = join(root, 'manifests');
const dataDir = join(root, 'state');
const env = { DIGITALOCEAN_TOKEN: TOKEN, CAIRN_POLL_MS: '100', CAIRN_PER_PROVIDER: '3' };
let double: DigitalOceanDouble;

function write(size: string): void {
  writeFileSync(join(dir, 'provider.yaml'), `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata: { name: digitalocean }\nspec:\n  vendor: digitalocean\n  endpoint: ${double.url}\n  credentialsRef: { env: DIGITALOCEAN_TOKEN }\n`);
  writeFileSync(
    join(dir, 'servers.yaml'),
    NAMES.map((name, i) => `apiVersion: cairn.dev/v1\nkind: Server\nmetadata: { name: ${name} }\nspec: { provider: digitalocean, region: ${['fra1', 'ams3', 'nyc3'][i % 3]}, size: ${size}, image: debian-12-x64 }\n`).join('---\n'),
  );
}

function counts(): Record<string, number> {
  const result: Record<string, number> = {};
  for (const s of double.droplets()) result[s.name] = (result[s.name] ?? 0) + 1;
  return result;
}

beforeAll(async () => {
  double = await startDigitalOceanDouble({ token: TOKEN, actionMs: 300, latencyMs: 20, slowAnswers: { operationIds: ['droplets_create'], ms: 400 } });
  mkdirSync(dir);
});
afterAll(async () => {
  expect(double.violations, 'requests or answers outside DigitalOcean’s document').toEqual([]);
  await double.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('SIGKILL during apply and delete at DigitalOcean', () => {
  it(`never duplicates a server over ${KILLS} kills, then converges`, async () => {
    const seed = crashSeed(`crash test against the DigitalOcean double, ${KILLS} kills`);
    const random = seededRandom(seed);
    let landed = 0;
    const history: string[] = [];
    for (let kill = 0; kill < KILLS; kill++) {
      const deleting = random() < 0.3;
      write(['s-1vcpu-1gb', 's-1vcpu-2gb'][kill % 2] ?? 's-1vcpu-1gb');
      const args = deleting ? ['delete', '-f', join(dir, 'servers.yaml'), '--auto-approve', '--data-dir', dataDir] : ['apply', '-f', dir, '--auto-approve', '--wait', '--data-dir', dataDir];
      const child = spawnCairn(args, { env });
      const done = collect(child, { timeoutMs: 60_000 });
      // The kill comes a random moment after the command starts reconciling (its first progress
      // line), when creates are likely to have reached DigitalOcean with their answers still on the way.
      const delay = Math.floor(random() * 800);
      let timer: NodeJS.Timeout | undefined;
      child.stdout?.on('data', (chunk: Buffer) => {
        if (timer === undefined && /: (pending|provisioning|creating|deleting|running)/.test(chunk.toString())) timer = setTimeout(() => child.kill('SIGKILL'), delay);
      });
      const result = await done;
      clearTimeout(timer);
      if (result.signal === 'SIGKILL') landed++;
      const store = Store.open(dataDir);
      const rows = store.resources.list({ tenant: 'default', kind: 'Server' }).map((r) => `${r.name}:${r.uid.slice(0, 8)}:${r.status.externalId ?? '-'}:${store.operations.get(r.uid, 'create') ? 'P' : ''}:${r.deletionTimestamp ? 'D' : ''}`).join(' ');
      store.close();
      history.push(`rows ${rows}\nrun ${kill} ${args[0]} ${result.signal ?? result.code} ${result.signal ? '' : result.stdout.slice(-1500)}: ${JSON.stringify(double.droplets().map((x) => [x.name, x.tags[0]?.slice(0, 24), x.tags[0]?.slice(-2)]))}`);
      const doubled = Object.entries(counts()).filter(([, n]) => n > 1);
      expect(doubled, `seed ${seed}, run ${kill} (${args[0]}) killed at ${delay} ms: names held by two droplets`).toEqual([]);
    }
    expect(landed, `seed ${seed}: kills that interrupted a running command`).toBeGreaterThanOrEqual(Math.ceil(KILLS / 2));

    write('s-1vcpu-2gb');
    const final = await runCairn(['apply', '-f', dir, '--auto-approve', '--wait', '--data-dir', dataDir], { env, timeoutMs: 120_000 });
    expect(final.code, `seed ${seed}: ${final.stdout}${final.stderr}\nat DigitalOcean: ${JSON.stringify(double.droplets().map((x) => [x.name, x.tags[0]]))}\nhistory: ${history.join('\n')}`).toBe(0);
    expect(counts(), `seed ${seed}: servers after the last apply`).toEqual(Object.fromEntries(NAMES.map((n) => [n, 1])));
    expect(double.droplets().every((s) => s.status === 'active' && s.size === 's-1vcpu-2gb')).toBe(true);
    const removed = await runCairn(['delete', '-f', join(dir, 'servers.yaml'), '--auto-approve', '--wait', '--data-dir', dataDir], { env, timeoutMs: 120_000 });
    expect(removed.code, `seed ${seed}: ${removed.stdout}${removed.stderr}`).toBe(0);
    expect(double.droplets(), `seed ${seed}: droplets left at DigitalOcean that cairn no longer knows`).toEqual([]);
  }, 600_000);
});
