/**
 * @module The crash test of Atlas's managed databases (the shared crash harness drives Servers,
 * which Atlas does not have): `cairn apply` of three managed MongoDB Databases killed with
 * SIGKILL at seeded random moments while the double holds back its answers to cluster creates
 * (the window in which the cluster exists at Atlas but cairn has not heard of it). After every
 * kill no Database has two clusters; a last apply converges to exactly one IDLE cluster each at
 * the second size; a delete leaves none behind.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAtlasDouble, type AtlasDouble } from '../doubles/atlas.js';
import { collect, runCairn, spawnCairn } from '../support/cairn-process.js';
import { crashSeed, seededRandom } from '../support/seeded-random.js';

const NAMES = ['orders-0', 'orders-1', 'orders-2'];
const SIZES = ['M10', 'M20'] as const;
const KILLS = Number(process.env.CAIRN_CRASH_KILLS ?? 4);

const root = mkdtempSync(join(tmpdir(), 'cairn-atlas-crash-'));
const dir = join(root, 'manifests');
const dataDir = join(root, 'state');
let double: AtlasDouble;
let env: Record<string, string> = {};

function write(size: string): void {
  writeFileSync(join(dir, 'provider.yaml'), `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata: { name: atlas }\nspec:\n  vendor: atlas\n  endpoint: ${double.url}\n  credentialsRef: { env: ATLAS_CREDENTIALS }\n`);
  const database = (name: string): string =>
    `apiVersion: cairn.dev/v1\nkind: Database\nmetadata:\n  name: ${name}\n  annotations: { cairn.dev/skip-final-backup: "true" }\nspec: { type: mongodb, version: "7.0", managed: true, provider: atlas, region: "AWS:EU_CENTRAL_1", size: ${size} }\n`;
  writeFileSync(join(dir, 'databases.yaml'), NAMES.map(database).join('---\n'));
}

/** Clusters per Database (by their cairn-name tag), deleting ones aside. */
function counts(): Record<string, number> {
  const result: Record<string, number> = {};
  for (const c of double.clusters().filter((x) => x.state !== 'DELETING')) {
    const name = c.tags.find((t) => t.key === 'cairn-name')?.value ?? c.name;
    result[name] = (result[name] ?? 0) + 1;
  }
  return result;
}

beforeAll(async () => {
  double = await startAtlasDouble({ token: 'atlas-crash-secret', actionMs: 300, slowAnswers: { operationIds: ['createCluster'], ms: 400 } });
  env = { ATLAS_CREDENTIALS: JSON.stringify({ clientId: double.clientId, clientSecret: double.clientSecret, projectId: double.projectId }), CAIRN_POLL_MS: '100' };
  mkdirSync(dir);
});
afterAll(async () => {
  expect(double.violations, 'requests or answers outside MongoDB Atlas’s document').toEqual([]);
  await double.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('SIGKILL during apply of managed databases at MongoDB Atlas', () => {
  it(`never makes two clusters for a Database over ${KILLS} kills, then converges and deletes them all`, async () => {
    const seed = crashSeed(`crash test against the MongoDB Atlas double, ${KILLS} kills`);
    const random = seededRandom(seed);
    const history: string[] = [];
    let landed = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      write(SIZES[kill % 2] ?? 'M10');
      const child = spawnCairn(['apply', '-f', dir, '--auto-approve', '--wait', '--data-dir', dataDir], { env });
      const done = collect(child, { timeoutMs: 60_000 });
      const delay = Math.floor(random() * 800);
      let timer: NodeJS.Timeout | undefined;
      child.stdout?.on('data', (chunk: Buffer) => {
        if (timer === undefined && /: (pending|creating|available)/.test(chunk.toString())) timer = setTimeout(() => child.kill('SIGKILL'), delay);
      });
      const result = await done;
      clearTimeout(timer);
      if (result.signal === 'SIGKILL') landed++;
      history.push(`run ${kill} killed ${delay} ms after its first progress line (${result.signal ?? result.code}): ${JSON.stringify(counts())}`);
      expect(Object.entries(counts()).filter(([, n]) => n > 1), `seed ${seed}, run ${kill}: Databases with two clusters\n${history.join('\n')}`).toEqual([]);
    }

    expect(landed, `seed ${seed}: kills that interrupted a running apply\n${history.join('\n')}`).toBeGreaterThanOrEqual(Math.ceil(KILLS / 3));

    write(SIZES[1]);
    const final = await runCairn(['apply', '-f', dir, '--auto-approve', '--wait', '--data-dir', dataDir], { env, timeoutMs: 120_000 });
    expect(final.code, `seed ${seed}: ${final.stdout}${final.stderr}\n${history.join('\n')}`).toBe(0);
    expect(counts()).toEqual(Object.fromEntries(NAMES.map((n) => [n, 1])));
    expect(double.clusters().every((c) => c.state === 'IDLE' && c.instanceSize === SIZES[1])).toBe(true);
    const removed = await runCairn(['delete', '-f', join(dir, 'databases.yaml'), '--auto-approve', '--wait', '--data-dir', dataDir], { env, timeoutMs: 120_000 });
    expect(removed.code, `seed ${seed}: ${removed.stdout}${removed.stderr}`).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(double.clusters(), `seed ${seed}: clusters left at Atlas that cairn no longer knows\n${history.join('\n')}`).toEqual([]);
  }, 300_000);
});
