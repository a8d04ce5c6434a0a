/**
 * @module Benchmark (issue #20): apply N servers to 1, 2 and 3 `cairn serve` replicas sharing a
 * loopback PostgreSQL store, against a separate `cairn sandbox-cloud` (provisioning 0 ms): wall
 * time from `cairn apply` (no --wait) starting until every resource is Ready, throughput, speed-up
 * over one replica, and each replica's peak RSS. BENCH_REPLICAS ("1,2,3") and
 * BENCH_REPLICAS_RESOURCES (10,000) choose what runs.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgresServer, type RunningPostgresServer } from '../test/support/postgres-server.js';
import type { Benchmark } from './support/benchmark.js';
import { cell, count, megabytes, ratio, seconds } from './support/figures.js';
import { writeServerFleet } from './support/fleet.js';
import { startListening, type ListeningProcess } from './support/listening-process.js';
import { failureOf, runCairnMeasured } from './support/measured-process.js';
import { CAIRN_BIN } from './support/repo-paths.js';
import { peakRssKb, startServeReplicas, stopServeReplicas, waitForFairShare, type ServeReplica } from './support/serve-replicas.js';
import { watchConvergence } from './support/store-convergence.js';

const DEFAULT_REPLICAS = [1, 2, 3];
const DEFAULT_RESOURCES = 10_000;
const SHARE_TIMEOUT_MS = 60_000;
const APPLY_TIMEOUT_MS = 900_000;
const CONVERGE_TIMEOUT_MS = 1_800_000;

export interface ReplicaRun {
  replicas: number;
  /** 1-minute load average just before this count's replicas started. */
  loadAtStart: number;
  /** Shards each replica held once they shared them. */
  shards: number[];
  /** From the last replica listening until the shards were shared fairly. */
  shareWaitMs: number;
  /** `cairn apply` from start to exit: the desired state written to the store. */
  applyMs: number | null;
  /** From apply starting until every resource was Ready. */
  convergeMs: number | null;
  /** Servers per second over convergeMs. */
  perSecond: number | null;
  /** Peak RSS (VmHWM, KiB) of each replica, read just before it stopped. */
  peakRssKb: Array<number | null>;
  error?: string;
}

export interface ReplicasResult {
  servers: number;
  cores: number;
  runs: ReplicaRun[];
}

function listFromEnv(name: string, raw: string | undefined, fallback: number[], min: number): number[] {
  if (raw === undefined || raw.trim() === '') return fallback;
  const values = raw.split(',').map((s) => Number(s.trim()));
  if (values.some((n) => !Number.isInteger(n) || n < min)) throw new Error(`${name}: "${raw}" must be whole numbers, each at least ${min}`);
  return values;
}

/** Runs one replica count on a fresh database: start, share, apply, converge, measure, stop. */
async function runReplicas(replicas: number, servers: number, postgres: RunningPostgresServer, manifests: string, root: string): Promise<ReplicaRun> {
  const store = await postgres.createDatabase(`bench_replicas_${replicas}_${randomBytes(3).toString('hex')}`);
  // The sandbox cloud is on loopback, which cairn refuses as a Provider endpoint unless the operator opens it.
  const env: NodeJS.ProcessEnv = {
    CAIRN_STORE: store,
    CAIRN_MASTER_KEY: randomBytes(32).toString('base64'),
    CAIRN_ALLOW_PRIVATE_ENDPOINTS: 'true',
    CAIRN_LOG_LEVEL: 'warn',
  };
  const loadAtStart = loadavg()[0] ?? 0;
  const run: ReplicaRun = { replicas, loadAtStart, shards: [], shareWaitMs: 0, applyMs: null, convergeMs: null, perSecond: null, peakRssKb: [] };
  let started: ServeReplica[] = [];
  const watch = await watchConvergence(store);
  try {
    started = await startServeReplicas(replicas, join(root, `r${replicas}`), env);
    const share = await waitForFairShare(started, SHARE_TIMEOUT_MS);
    run.shards = share.shards;
    run.shareWaitMs = share.waitedMs;
    const since = performance.now();
    const applying = runCairnMeasured(['apply', '-f', manifests, '--auto-approve', '--data-dir', join(root, `r${replicas}`, 'apply')], {
      stdout: 'discard',
      timeoutMs: APPLY_TIMEOUT_MS,
      env,
    });
    // The provider and every server; polling starts with the apply, so a slow write shows in the wall.
    const [applied, converged] = await Promise.all([applying, watch.converged(servers + 1, since, CONVERGE_TIMEOUT_MS)]);
    const applyError = failureOf(applied);
    if (applyError !== undefined) throw new Error(`cairn apply: ${applyError}`);
    run.applyMs = applied.wallMs;
    run.convergeMs = converged.wallMs;
    run.perSecond = servers / (converged.wallMs / 1000);
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
    const tails = started.map((r) => `replica ${r.index}:\n${r.process.tail(6)}`).join('\n');
    if (tails !== '') run.error += `\n${tails}`;
  } finally {
    run.peakRssKb = started.map((r) => peakRssKb(r.process.pid));
    await stopServeReplicas(started);
    await watch.close();
  }
  return run;
}

async function run(progress: (line: string) => void): Promise<ReplicasResult> {
  const counts = listFromEnv('BENCH_REPLICAS', process.env.BENCH_REPLICAS, DEFAULT_REPLICAS, 1);
  const [servers = DEFAULT_RESOURCES] = listFromEnv('BENCH_REPLICAS_RESOURCES', process.env.BENCH_REPLICAS_RESOURCES, [DEFAULT_RESOURCES], 1);
  const root = mkdtempSync(join(tmpdir(), 'cairn-bench-replicas-'));
  let postgres: RunningPostgresServer | undefined;
  let cloud: ListeningProcess | undefined;
  const runs: ReplicaRun[] = [];
  try {
    postgres = await startPostgresServer();
    cloud = await startListening([CAIRN_BIN, 'sandbox-cloud', '--port', '0', '--provision-ms', '0', '--data-dir', join(root, 'cloud')]);
    const manifests = join(root, 'manifests');
    writeServerFleet(manifests, { endpoint: cloud.url, servers });
    progress(`PostgreSQL on loopback, sandbox cloud at ${cloud.url}, ${count(servers)} servers`);
    for (const replicas of counts) {
      const result = await runReplicas(replicas, servers, postgres, manifests, root);
      runs.push(result);
      progress(
        result.error === undefined
          ? `${replicas} replica(s): ${seconds(result.convergeMs)} to converge (apply ${seconds(result.applyMs)}), ${Math.round(result.perSecond ?? 0)}/s`
          : `${replicas} replica(s): failed: ${result.error.split('\n')[0] ?? ''}`,
      );
    }
  } finally {
    await cloud?.stop();
    await postgres?.stop();
    rmSync(root, { recursive: true, force: true });
  }
  return { servers, cores: cpus().length, runs };
}

function format(result: ReplicasResult): string[] {
  const base = result.runs.find((r) => r.replicas === 1 && r.convergeMs !== null)?.convergeMs ?? null;
  const lines = [
    `apply of ${count(result.servers)} servers (and their Provider) to R cairn serve replicas on one loopback PostgreSQL store; separate sandbox cloud, provisioning 0 ms`,
    `  ${cell('R', 2, 'right')}  ${cell('shards', 9)}  ${cell('converge', 9, 'right')}  ${cell('apply', 8, 'right')}  ${cell('servers/s', 9, 'right')}  ${cell('speed-up', 8, 'right')}  ${cell('peak RSS per replica', 26)}  load at start`,
  ];
  for (const r of result.runs) {
    const speedUp = base !== null && r.convergeMs !== null ? ratio(base / r.convergeMs) : '—';
    const rss = r.peakRssKb.map(megabytes).join(' / ') || '—';
    lines.push(
      `  ${cell(String(r.replicas), 2, 'right')}  ${cell(r.shards.join('/') || '—', 9)}  ${cell(seconds(r.convergeMs), 9, 'right')}  ${cell(seconds(r.applyMs), 8, 'right')}  ${cell(r.perSecond === null ? '—' : count(Math.round(r.perSecond)), 9, 'right')}  ${cell(speedUp, 8, 'right')}  ${cell(rss, 26)}  ${r.loadAtStart.toFixed(2)}`,
    );
    if (r.error !== undefined) lines.push(...r.error.split('\n').map((l) => `      ! ${l}`));
  }
  const beyond = result.runs.filter((r) => r.replicas > result.cores).map((r) => r.replicas);
  lines.push(
    '  converge: from `cairn apply -f DIR --auto-approve` (no --wait) starting until one query (every 500 ms) sees every resource Ready at its generation;',
    '  apply: that command from start to exit (the desired state written to the store); each R on a fresh database, its replicas already sharing the 32 shards.',
    `  This machine has ${result.cores} core(s)${beyond.length > 0 ? `: at R = ${beyond.join(', ')} replicas share CPU with each other, with PostgreSQL and the sandbox cloud, so the figure shows coordination overhead, not more hardware` : '; PostgreSQL, the sandbox cloud and the apply share them with the replicas'}.`,
  );
  return lines;
}

export const replicasBenchmark: Benchmark<ReplicasResult> = {
  name: 'replicas',
  description: 'apply 10,000 servers to 1, 2 and 3 cairn serve replicas on one PostgreSQL store: convergence, speed-up, RSS (issue #20)',
  run,
  format,
};
