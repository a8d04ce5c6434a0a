/**
 * @module The crash test every cloud vendor's double runs: `cairn apply` and `cairn delete` of
 * eight servers killed with SIGKILL at seeded random moments (`CAIRN_CRASH_SEED` replays), the
 * kill timed from the command's first progress line while the double holds back its answers to
 * creates (the window in which a server exists at the vendor but cairn has not heard of it).
 * After every kill no name is held twice; a last apply converges to exactly one of each at the
 * second size; a delete leaves none behind (a create whose answer was lost is found by its
 * label or tag, not leaked).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { collect, runCairn, spawnCairn } from './cairn-process.js';
import { crashSeed, seededRandom } from './seeded-random.js';

/** One server at the vendor, as the crash test looks at it. */
export interface HeldServer {
  name: string;
  /** The idempotency label or tag it carries. */
  key: string | undefined;
  size: string;
  running: boolean;
}

export interface CrashDouble {
  url: string;
  violations: string[];
  held(): HeldServer[];
  stop(): Promise<void>;
}

export interface VendorCrashOptions {
  vendor: string;
  /** Shown in messages: `Hetzner`. */
  title: string;
  tokenEnv: string;
  token: string;
  regions: readonly string[];
  image: string;
  /** The sizes runs alternate between; the last apply asks for the second. */
  sizes: readonly [string, string];
  /** Starts the double with its answers to creates held back (slowAnswers). */
  start(): Promise<CrashDouble>;
}

const NAMES = Array.from({ length: 8 }, (_, i) => `web-${i + 1}`);

export function describeVendorCrashTest(options: VendorCrashOptions): void {
  // Eight kills per vendor in CI (nine vendors keep `npm test` within its time); CAIRN_CRASH_KILLS=50 soaks one longer.
  const kills = Number(process.env.CAIRN_CRASH_KILLS ?? 8);
  const root = mkdtempSync(join(tmpdir(), `cairn-${options.vendor}-crash-`));
  const dir = join(root, 'manifests');
  const dataDir = join(root, 'state');
  const env = { [options.tokenEnv]: options.token, CAIRN_POLL_MS: '100', CAIRN_PER_PROVIDER: '3' };
  let double: CrashDouble;

  function write(size: string): void {
    const { vendor } = options;
    writeFileSync(join(dir, 'provider.yaml'), `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata: { name: ${vendor} }\nspec:\n  vendor: ${vendor}\n  endpoint: ${double.url}\n  credentialsRef: { env: ${options.tokenEnv} }\n`);
    const server = (name: string, i: number): string =>
      `apiVersion: cairn.dev/v1\nkind: Server\nmetadata: { name: ${name} }\nspec: { provider: ${vendor}, region: ${options.regions[i % options.regions.length] ?? ''}, size: ${size}, image: ${options.image} }\n`;
    writeFileSync(join(dir, 'servers.yaml'), NAMES.map(server).join('---\n'));
  }

  function counts(): Record<string, number> {
    const result: Record<string, number> = {};
    for (const s of double.held()) result[s.name] = (result[s.name] ?? 0) + 1;
    return result;
  }

  /** The servers cairn records (uid, vendor id, pending create, deleting), for a failure's story. */
  function recorded(): string {
    const store = Store.open(dataDir);
    try {
      return store.resources.list({ tenant: 'default', kind: 'Server' })
        .map((r) => `${r.name}:${r.uid.slice(0, 8)}:${r.status.externalId ?? '-'}:${store.operations.get(r.uid, 'create') ? 'P' : ''}:${r.deletionTimestamp ? 'D' : ''}`).join(' ');
    } finally {
      store.close();
    }
  }

  beforeAll(async () => {
    double = await options.start();
    mkdirSync(dir);
  });
  afterAll(async () => {
    expect(double.violations, `requests or answers outside ${options.title}’s document`).toEqual([]);
    await double.stop();
    rmSync(root, { recursive: true, force: true });
  });

  describe(`SIGKILL during apply and delete at ${options.title}`, () => {
    it(`never duplicates or leaks a server over ${kills} kills, then converges`, async () => {
      const seed = crashSeed(`crash test against the ${options.title} double, ${kills} kills`);
      const random = seededRandom(seed);
      const history: string[] = [];
      let landed = 0;
      for (let kill = 0; kill < kills; kill++) {
        // A delete with nothing at the vendor ends before any kill can land: delete only what is there.
        const deleting = random() < 0.3 && double.held().length > 0;
        write(options.sizes[kill % 2] ?? options.sizes[0]);
        const args = deleting ? ['delete', '-f', join(dir, 'servers.yaml'), '--auto-approve', '--data-dir', dataDir] : ['apply', '-f', dir, '--auto-approve', '--wait', '--data-dir', dataDir];
        const child = spawnCairn(args, { env });
        const done = collect(child, { timeoutMs: 60_000 });
        const delay = Math.floor(random() * 800);
        let timer: NodeJS.Timeout | undefined;
        child.stdout?.on('data', (chunk: Buffer) => {
          if (timer === undefined && /: (pending|provisioning|creating|deleting|running)/.test(chunk.toString())) timer = setTimeout(() => child.kill('SIGKILL'), delay);
        });
        const result = await done;
        clearTimeout(timer);
        if (result.signal === 'SIGKILL') landed++;
        history.push(`delay ${delay} ms; recorded ${recorded()}\nrun ${kill} ${args[0]} ${result.signal ?? result.code}: held ${JSON.stringify(double.held().map((s) => [s.name, s.key]))}`);
        const doubled = Object.entries(counts()).filter(([, n]) => n > 1);
        expect(doubled, `seed ${seed}, run ${kill} (${args[0]}) killed ${delay} ms after its first progress line: names held twice`).toEqual([]);
      }
      // A kill timed after a quick command has ended does not land; a third of them must (a fast double finishes many runs first).
      expect(landed, `seed ${seed}: kills that interrupted a running command\nhistory:\n${history.join('\n')}`).toBeGreaterThanOrEqual(Math.ceil(kills / 3));

      write(options.sizes[1]);
      const final = await runCairn(['apply', '-f', dir, '--auto-approve', '--wait', '--data-dir', dataDir], { env, timeoutMs: 120_000 });
      expect(final.code, `seed ${seed}: ${final.stdout}${final.stderr}\nhistory:\n${history.join('\n')}`).toBe(0);
      expect(counts(), `seed ${seed}: servers after the last apply`).toEqual(Object.fromEntries(NAMES.map((n) => [n, 1])));
      expect(double.held().every((s) => s.running && s.size === options.sizes[1])).toBe(true);
      const removed = await runCairn(['delete', '-f', join(dir, 'servers.yaml'), '--auto-approve', '--wait', '--data-dir', dataDir], { env, timeoutMs: 120_000 });
      expect(removed.code, `seed ${seed}: ${removed.stdout}${removed.stderr}`).toBe(0);
      expect(double.held(), `seed ${seed}: servers left at ${options.title} that cairn no longer knows\nhistory:\n${history.join('\n')}`).toEqual([]);
    }, 600_000);
  });
}
