/**
 * @module Failover of `cairn serve` replicas on one PostgreSQL store (issue #20): three replicas,
 * each with its own data dir, reconcile servers against a separate sandbox cloud. Ten rounds at
 * seeded random moments: the replica holding the most shards is killed (-9) mid-apply and the
 * others take its shards within 15 s, or one is paused (SIGSTOP) past its lease and resumed and
 * the server's statement log shows it wrote nothing once resumed (or, stopped inside a
 * transaction, the server ended its session and it stops). After every round everything converges
 * and the sandbox holds exactly one server per declared server.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCairn, startSandboxCloudProcess, startServe, type SandboxCloudProcess, type ServeProcess } from './support/cairn-process.js';
import { startPostgresServer, type RunningPostgresServer } from './support/postgres-server.js';
import { crashSeed, seededRandom } from './support/seeded-random.js';
import { countByName, inventory } from './support/vendor-inventory.js';

/** Servers declared at the start; CAIRN_REPLICA_RESOURCES=1000 runs the full size. */
const SERVERS = Number(process.env.CAIRN_REPLICA_RESOURCES ?? 200);
const ROUNDS = 10;
const SHARDS = 32;
/** The bound on taking a dead replica's shards (the lease TTL is 10 s, a pass every 3.3 s). */
const TAKEOVER_MS = 15_000;
const SIZES = ['small', 'medium', 'large'];
/** Tables a replica writes for its own membership, not for any resource: allowed from a resumed replica. */
const MEMBERSHIP_TABLES = new Set(['shard_leases', 'replicas', 'leases']);
/** /readyz asks whether the store takes a write with one that changes nothing (Store.isWritable). */
const READINESS_PROBE = "UPDATE meta SET value = value WHERE key = 'revision'";

let root: string;
let postgres: RunningPostgresServer | undefined;
let cloud: SandboxCloudProcess | undefined;
let replicas: ServeProcess[] = [];
/** Every replica started, for the clean-up whatever happened (a failed round may not have put one in `replicas`). */
const started: ServeProcess[] = [];
const env: NodeJS.ProcessEnv = { CAIRN_MASTER_KEY: randomBytes(32).toString('base64') };

/** A new replica with a data dir of its own, as on a machine of its own. */
async function startReplica(): Promise<ServeProcess> {
  const replica = await startServe(['--port', '0', '--data-dir', join(root, `replica-${started.length + 1}`)], { env });
  started.push(replica);
  return replica;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-replicas-failover-'));
  // Every data-changing statement, with the connection's application_name (`cairn pid <pid>`).
  postgres = await startPostgresServer({ extraConfig: ["log_statement = 'mod'", "log_line_prefix = '%m [%a] '", 'max_connections = 30'] });
  env.CAIRN_STORE = await postgres.createDatabase();
  cloud = await startSandboxCloudProcess(['--data-dir', join(root, 'cloud'), '--provision-ms', '1500', '--latency-ms', '150']);
  for (let i = 0; i < 3; i++) replicas.push(await startReplica());
}, 120_000);

afterAll(async () => {
  for (const r of started) {
    if (r.child.exitCode !== null || r.child.signalCode !== null) continue;
    r.child.kill('SIGCONT');
    r.child.kill('SIGKILL');
  }
  await cloud?.stop();
  await postgres?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** A replica's shards, or undefined when it does not answer within a second. */
async function shardsOf(r: ServeProcess): Promise<number[] | undefined> {
  try {
    const response = await fetch(`${r.base}/readyz`, { signal: AbortSignal.timeout(1_000) });
    return ((await response.json()) as { shards?: number[] }).shards ?? [];
  } catch {
    return undefined;
  }
}

/**
 * Polls `among` until they hold every shard exactly once between them (in fair shares, with
 * `fair`); returns how long that took, or undefined past `withinMs`.
 */
async function untilAllShardsHeld(among: ServeProcess[], since: number, withinMs: number, fair = false): Promise<{ ms: number; shards: number[][] } | undefined> {
  const share = Math.ceil(SHARDS / among.length);
  while (Date.now() - since <= withinMs) {
    const held = await Promise.all(among.map(shardsOf));
    const shards = held.map((s) => s ?? []);
    const all = shards.flat();
    const shared = !fair || shards.every((s) => s.length >= share - 1 && s.length <= share);
    if (held.every((s) => s !== undefined) && all.length === SHARDS && new Set(all).size === SHARDS && shared) return { ms: Date.now() - since, shards };
    await sleep(200);
  }
  return undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** provider.yaml and servers.yaml: one Server per entry of `servers`, at its size. */
function writeServers(dir: string, servers: ReadonlyMap<string, string>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'provider.yaml'), `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n  endpoint: ${cloud?.url}\n`);
  writeFileSync(
    join(dir, 'servers.yaml'),
    [...servers]
      .map(([name, size], i) => `apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: ${name}\nspec:\n  provider: sandbox\n  region: ${['eu-1', 'us-1', 'ap-1'][i % 3]}\n  size: ${size}\n  image: debian-12\n`)
      .join('---\n'),
  );
}

/** The statement log's data-changing statements from connection `application`, on tables other than the membership ones. */
function resourceWrites(log: string, application: string): string[] {
  const entries = log.split(/\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \S+ \[)/);
  const writes: string[] = [];
  for (const entry of entries) {
    if (!entry.includes(` [${application}] LOG:  `)) continue;
    const statement = /LOG: {2}(?:statement|execute [^:]*): ([\s\S]*)/.exec(entry)?.[1];
    if (statement === undefined || statement.trim() === READINESS_PROBE) continue;
    const table = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(\w+)/i.exec(statement)?.[1];
    if (table !== undefined && MEMBERSHIP_TABLES.has(table.toLowerCase())) continue;
    writes.push(entry.trim());
  }
  return writes;
}

describe('three cairn serve replicas on one PostgreSQL, failing over', () => {
  it(`take a killed replica's shards within 15 s, keep a paused one from writing, and converge over ${ROUNDS} rounds`, async () => {
    const seed = crashSeed(`replica failover, ${SERVERS} servers, ${ROUNDS} rounds`);
    const random = seededRandom(seed);
    const at = (round: number, what: string): string => `seed ${seed}, round ${round}: ${what}`;
    const dir = join(root, 'manifests');
    const applyDataDir = join(root, 'apply');
    const servers = new Map(Array.from({ length: SERVERS }, (_, i) => [`web-${i + 1}`, 'small']));
    let next = SERVERS + 1;

    const initial = await untilAllShardsHeld(replicas, Date.now(), 20_000, true);
    expect(initial?.shards.map((s) => s.length).sort(), 'three replicas share the shards 11/11/10').toEqual([10, 11, 11]);

    /** Adds, resizes or deletes servers; returns once the store holds the change (the replicas reconcile it). */
    const change = async (round: number, kind: 'kill' | 'pause'): Promise<string> => {
      // Before a pause, new servers: their creates stay in flight (provisioning) for seconds, so the paused replica has work under way.
      const what = kind === 'pause' ? 1 : random();
      if (what < 0.25 && servers.size > SERVERS / 2) {
        const gone = [...servers.keys()].filter(() => random() < 0.1).slice(0, Math.ceil(SERVERS / 10));
        for (const name of gone) servers.delete(name);
        writeServers(join(root, 'deleting'), new Map(gone.map((name) => [name, 'small'])));
        const result = await runCairn(['delete', '-f', join(root, 'deleting', 'servers.yaml'), '--auto-approve', '--data-dir', applyDataDir], { env });
        expect(result.code, at(round, `delete: ${result.stdout}${result.stderr}`)).toBe(0);
        return `deleted ${gone.length}`;
      }
      let verb: string;
      if (what < 0.6) {
        const size = SIZES[round % SIZES.length] ?? 'small';
        let resized = 0;
        for (const name of servers.keys()) {
          if (random() >= 0.3) continue;
          servers.set(name, size);
          resized++;
        }
        verb = `resized ${resized} to ${size}`;
      } else {
        const added = Math.ceil(SERVERS / 10);
        for (let i = 0; i < added; i++) servers.set(`web-${next++}`, 'small');
        verb = `added ${added}`;
      }
      writeServers(dir, servers);
      const result = await runCairn(['apply', '-f', dir, '--auto-approve', '--data-dir', applyDataDir], { env });
      expect(result.code, at(round, `apply: ${result.stdout}${result.stderr}`)).toBe(0);
      return verb;
    };

    /** Everything declared is Ready in cairn, and the sandbox holds exactly one server per declared server, at its size. */
    const converges = async (round: number): Promise<void> => {
      writeServers(dir, servers);
      const result = await runCairn(['apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '120s', '--data-dir', applyDataDir], { env, timeoutMs: 150_000 });
      expect(result.stdout, at(round, `apply --wait: ${result.stderr}`)).toContain(`Apply complete: ${servers.size + 1} ready.`);
      const world = await inventory(cloud?.url ?? '');
      expect(countByName(world.servers), at(round, 'servers in the sandbox')).toEqual(Object.fromEntries([...servers.keys()].map((name) => [name, 1])));
      const wrong = world.servers.filter((s) => s.status !== 'running' || s.size !== servers.get(s.name));
      expect(wrong, at(round, 'servers not running at their declared size')).toEqual([]);
    };

    // Every server made once before the rounds begin.
    writeServers(dir, servers);
    const first = await runCairn(['apply', '-f', dir, '--auto-approve', '--data-dir', applyDataDir], { env });
    expect(first.code, `first apply: ${first.stderr}`).toBe(0);
    await converges(0);

    const pauseFirst = random() < 0.5;
    for (let round = 1; round <= ROUNDS; round++) {
      const kind = (round % 2 === 1) === pauseFirst ? 'pause' : 'kill';
      const did = await change(round, kind);
      // The replicas pick the change up from the store within 100 ms: strike while they work on it.
      const delay = Math.floor(random() * 1_500);
      await sleep(delay);
      const held = await Promise.all(replicas.map(shardsOf));
      console.log(at(round, `${did}; ${kind} after ${delay} ms; shards held ${held.map((s) => s?.length).join('/')}`));

      const struck = Date.now();
      if (kind === 'kill') {
        const most = held.reduce((best, s, i) => ((s?.length ?? 0) > (held[best]?.length ?? 0) ? i : best), 0);
        const victim = replicas[most] as ServeProcess;
        victim.child.kill('SIGKILL');
        const survivors = replicas.filter((r) => r !== victim);
        const takeover = await untilAllShardsHeld(survivors, struck, TAKEOVER_MS);
        expect(takeover, at(round, `the survivors hold all ${SHARDS} shards within 15 s of the kill`)).toBeDefined();
        console.log(at(round, `survivors took the killed replica's ${held[most]?.length} shards in ${takeover?.ms} ms`));
        // A new replica in its place, on a machine (data dir) of its own, while the survivors converge.
        const [replacement] = await Promise.all([startReplica(), converges(round)]);
        replicas = [...survivors, replacement];
      } else {
        // The busiest replica: it has the most reconciles in flight when it stops.
        const most = held.reduce((best, s, i) => ((s?.length ?? 0) > (held[best]?.length ?? 0) ? i : best), 0);
        const victim = replicas[most] as ServeProcess;
        const application = `cairn pid ${victim.child.pid}`;
        victim.child.kill('SIGSTOP');
        const others = replicas.filter((r) => r !== victim);
        const takeover = await untilAllShardsHeld(others, struck, TAKEOVER_MS);
        expect(takeover, at(round, `the others hold all ${SHARDS} shards within 15 s of the pause`)).toBeDefined();
        await sleep(Math.floor(random() * 1_500));
        const output = victim.output().length;
        const resumedAt = postgres?.log().length ?? 0;
        victim.child.kill('SIGCONT');
        console.log(at(round, `paused ${application} (${held[most]?.length} shards) for ${Date.now() - struck} ms; the others held its shards after ${takeover?.ms} ms`));
        // Until it holds a shard again (a new share, under new tokens, once the others give some
        // back), every shard it thinks it holds is a stale one: it must write nothing for a resource.
        // The log is read before each look at /readyz, so what precedes a look that found no fresh shard is in the window.
        const window = async (): Promise<{ end: number; dropped: boolean; ms: number }> => {
          let end = resumedAt;
          let dropped = false;
          const resumed = Date.now();
          while (Date.now() - resumed < 15_000) {
            const logged = postgres?.log().length ?? 0;
            const exited = victim.child.exitCode !== null || victim.child.signalCode !== null;
            const shards = await shardsOf(victim);
            // Gone: it writes nothing more, and everything logged so far is in the window.
            if (exited) return { end: logged, dropped: true, ms: Date.now() - resumed };
            if (shards === undefined) continue;
            if (shards.length > 0 && dropped) break;
            if (shards.length === 0) dropped = true;
            end = logged;
            await sleep(100);
          }
          return { end, dropped, ms: Date.now() - resumed };
        };
        const [watched] = await Promise.all([window(), converges(round)]);
        expect(watched.dropped, at(round, 'the resumed replica gives up its stale shards')).toBe(true);
        const writes = resourceWrites((postgres?.log() ?? '').slice(resumedAt, watched.end), application);
        expect(writes, at(round, `writes by the resumed replica (${application}) in the ${watched.ms} ms before it held a shard again`)).toEqual([]);
        const said = victim.output().slice(output);
        if (victim.child.exitCode === null && victim.child.signalCode === null) {
          // Stopped between transactions: its reconciles in flight went on once resumed, and their next write met the fence.
          const refused = said.split('\n').filter((line) => line.includes('write refused'));
          expect(refused.length, at(round, `the resumed replica says its writes under stale leases were refused; it said:\n${said}`)).toBeGreaterThan(0);
          console.log(at(round, `resumed replica lives on: ${refused.length} writes refused by the fence, none landed in ${watched.ms} ms`));
        } else {
          // Stopped inside a transaction (holding the write lock): the server ended its session, so the others could go on; resumed, it finds it gone.
          expect(said, at(round, 'the resumed replica stopped because its session was ended')).toMatch(/terminating connection due to idle-in-transaction timeout|Connection terminated/);
          console.log(at(round, `resumed replica found its session ended by the server and stopped, having written nothing: ${said.split('\n').find((line) => /terminat/i.test(line))?.trim()}`));
          replicas = [...others, await startReplica()];
        }
      }
      console.log(at(round, `converged ${Date.now() - struck} ms after the ${kind}`));
    }
    const final = await untilAllShardsHeld(replicas, Date.now(), 20_000, true);
    expect(final?.shards.map((s) => s.length).sort(), at(ROUNDS, 'the three replicas share the shards again')).toEqual([10, 11, 11]);
  }, 900_000);
});
