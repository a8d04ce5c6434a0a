/**
 * @module Benchmark: `cairn apply --auto-approve` of a Provider and 1,000 Servers against a
 * sandbox cloud (run in this process, servers ready at once) at 0 ms and 50 ms vendor latency:
 * wall time of the real compiled CLI from start to exit, vendor requests, and the ideal time for
 * the reconcile loop's concurrency.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandboxCloud } from '../src/sandbox-cloud/index.js';
import { profilingArgs, type Benchmark } from './support/benchmark.js';
import { cell, count, megabytes, ratio, seconds, verdict } from './support/figures.js';
import { writeServerFleet } from './support/fleet.js';
import { failureOf, runCairnMeasured } from './support/measured-process.js';

const SERVERS = 1_000;
const LATENCIES_MS = [0, 50] as const;
const RUNS_PER_LATENCY = 2;
/** A first run slower than this is not repeated, to keep the whole benchmark within minutes. */
const REPEAT_ONLY_UNDER_MS = 15_000;
const TIMEOUT_MS = 150_000;
const TARGET_ZERO_LATENCY_MS = 5_000;
const TARGET_IDEAL_RATIO = 1.5;

/**
 * The controller's defaults when the environment does not set them (src/reconcile/controller.ts,
 * constructor and start(): perProvider 32, perKind 64, workers 64).
 */
const DEFAULT_PER_PROVIDER = 32;
const DEFAULT_PER_KIND = 64;
const DEFAULT_WORKERS = 64;

/** Moments of the apply, seen on its stdout. */
const MARKS = {
  /** The plan is printed: startup, loading the manifests, planning and rendering are done. */
  planShown: /^Plan: /,
  /** The first progress line: the desired state is written and the reconcile loop has started. */
  reconcileStarted: /^(Provider|Server)\/\S+: /,
  firstReady: /^Server\/\S+: running/,
  complete: /^Apply complete/,
} as const;

export interface Concurrency {
  perProvider: number;
  perKind: number;
  workers: number;
  /** Reconciles against the one provider at once: the smallest of the three. */
  effective: number;
  /** Which of them the environment set (CAIRN_PER_PROVIDER, CAIRN_WORKERS). */
  fromEnv: string[];
}

export interface ApplyRunResult {
  latencyMs: number;
  attempt: number;
  wallMs: number;
  ok: boolean;
  error?: string;
  maxRssKb: number | null;
  /** CPU (user + system) of the cairn process. */
  cpuMs: number | null;
  /** CPU of this process meanwhile: the sandbox cloud serving the requests. */
  sandboxCpuMs: number;
  vendorRequests: number;
  requestsByRoute: Record<string, number>;
  /** Milliseconds from start to each of MARKS. */
  marks: Record<string, number>;
  stdoutLines: number;
  /** SERVERS × latency / concurrency; null at 0 ms. */
  idealMs: number | null;
  /** Wall time (start to exit) over the ideal. */
  ratioToIdeal: number | null;
  /** From the first progress line to "Apply complete": the reconcile loop's share of the wall time. */
  reconcileMs: number | null;
}

export interface ApplyResult {
  servers: number;
  concurrency: Concurrency;
  runs: ApplyRunResult[];
  targets: { zeroLatencyMs: number; idealRatio: number };
}

function concurrencyFromEnv(env: NodeJS.ProcessEnv = process.env): Concurrency {
  const read = (name: string): number | undefined => {
    const value = Number(env[name]);
    return env[name] !== undefined && env[name] !== '' && Number.isFinite(value) && value > 0 ? value : undefined;
  };
  const perProvider = read('CAIRN_PER_PROVIDER');
  const workers = read('CAIRN_WORKERS');
  const resolved = { perProvider: perProvider ?? DEFAULT_PER_PROVIDER, perKind: DEFAULT_PER_KIND, workers: workers ?? DEFAULT_WORKERS };
  return {
    ...resolved,
    effective: Math.min(resolved.perProvider, resolved.perKind, resolved.workers),
    fromEnv: [...(perProvider === undefined ? [] : ['CAIRN_PER_PROVIDER']), ...(workers === undefined ? [] : ['CAIRN_WORKERS'])],
  };
}

async function applyOnce(latencyMs: number, attempt: number, concurrency: Concurrency, nodeArgs: readonly string[] = []): Promise<ApplyRunResult> {
  const root = mkdtempSync(join(tmpdir(), 'cairn-bench-apply-'));
  const cloud = await startSandboxCloud({ dataDir: join(root, 'sandbox'), port: 0, provisionMs: 0, latencyMs });
  try {
    const manifests = join(root, 'manifests');
    writeServerFleet(manifests, { endpoint: cloud.url, servers: SERVERS });
    const cpuBefore = process.cpuUsage();
    const run = await runCairnMeasured(['apply', '-f', manifests, '--auto-approve', '--data-dir', join(root, 'data')], {
      stdout: 'capture',
      timeoutMs: TIMEOUT_MS,
      marks: MARKS,
      nodeArgs,
    });
    const cpu = process.cpuUsage(cpuBefore);
    const stats = cloud.stats();
    const error = failureOf(run);
    const idealMs = latencyMs > 0 ? (SERVERS * latencyMs) / concurrency.effective : null;
    return {
      latencyMs,
      attempt,
      wallMs: run.wallMs,
      ok: error === undefined,
      ...(error === undefined ? {} : { error }),
      maxRssKb: run.maxRssKb,
      cpuMs: run.cpuMs,
      sandboxCpuMs: (cpu.user + cpu.system) / 1000,
      vendorRequests: stats.requests,
      requestsByRoute: stats.byRoute,
      marks: run.marks,
      stdoutLines: run.stdoutLines,
      idealMs,
      ratioToIdeal: idealMs === null ? null : run.wallMs / idealMs,
      reconcileMs: run.marks.complete !== undefined && run.marks.reconcileStarted !== undefined ? run.marks.complete - run.marks.reconcileStarted : null,
    };
  } finally {
    await cloud.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function run(progress: (line: string) => void): Promise<ApplyResult> {
  const concurrency = concurrencyFromEnv();
  const runs: ApplyRunResult[] = [];
  for (const latencyMs of LATENCIES_MS) {
    const profiling = profilingArgs(`apply-${latencyMs}ms`);
    if (profiling.length > 0) {
      const profiled = await applyOnce(latencyMs, 0, concurrency, profiling); // a run of its own, so that profiling slows no measured run
      progress(`apply ${count(SERVERS)} servers at ${latencyMs} ms: profiled run ${seconds(profiled.wallMs)}`);
    }
    for (let attempt = 1; attempt <= RUNS_PER_LATENCY; attempt++) {
      const result = await applyOnce(latencyMs, attempt, concurrency);
      runs.push(result);
      progress(`apply ${count(SERVERS)} servers at ${latencyMs} ms: run ${attempt} ${seconds(result.wallMs)}${result.ok ? '' : ' (failed)'}`);
      if (!result.ok || result.wallMs > REPEAT_ONLY_UNDER_MS) break;
    }
  }
  return { servers: SERVERS, concurrency, runs, targets: { zeroLatencyMs: TARGET_ZERO_LATENCY_MS, idealRatio: TARGET_IDEAL_RATIO } };
}

function format(result: ApplyResult): string[] {
  const { concurrency, targets } = result;
  const lines = [`apply ${count(result.servers)} servers (target < ${seconds(targets.zeroLatencyMs, 0)} at 0 ms; within ${ratio(targets.idealRatio)} of the ideal at 50 ms)`];
  for (const r of result.runs) {
    const label = `latency ${r.latencyMs} ms  #${r.attempt}`;
    const check = r.ratioToIdeal === null ? verdict(r.wallMs, targets.zeroLatencyMs) : verdict(r.ratioToIdeal, targets.idealRatio);
    const ideal = r.idealMs === null ? '' : `   ideal ${seconds(r.idealMs)} (concurrency ${concurrency.effective}) → ${ratio(r.ratioToIdeal ?? Number.NaN)}`;
    lines.push(`  ${cell(label, 20)}  ${cell(seconds(r.wallMs), 7, 'right')}  ${cell(`${count(r.vendorRequests)} vendor calls`, 18)}  ${cell(check, 4)}${ideal}`);
    const m = r.marks;
    const loop = r.idealMs !== null && r.reconcileMs !== null ? ` (reconcile loop ${seconds(r.reconcileMs)} → ${ratio(r.reconcileMs / r.idealMs)} the ideal)` : '';
    lines.push(
      `  ${cell('', 20)}  plan shown ${seconds(m.planShown)} · reconcile from ${seconds(m.reconcileStarted)} · first ready ${seconds(m.firstReady)} · all ready ${seconds(m.complete)} · exit ${seconds(r.wallMs)}${loop}`,
      `  ${cell('', 20)}  cairn CPU ${seconds(r.cpuMs)} · peak RSS ${megabytes(r.maxRssKb)} · sandbox CPU ${seconds(r.sandboxCpuMs)} · ${count(r.stdoutLines)} lines of output`,
    );
    if (r.error) lines.push(...r.error.split('\n').map((l) => `  ${cell('', 20)}  ! ${l}`));
  }
  const knobs = concurrency.fromEnv.length > 0 ? `set by ${concurrency.fromEnv.join(', ')}` : 'defaults';
  lines.push(
    `  time: \`node bin/cairn.js apply -f DIR --auto-approve --data-dir D\` (compiled), start to exit, exit 0 required; one provider + ${count(result.servers)} servers,`,
    `  sandbox cloud in the benchmark process (provisionMs 0, so a server is running once created); vendor calls: its request count.`,
    `  concurrency ${concurrency.effective} = min(CAIRN_PER_PROVIDER ${concurrency.perProvider}, per kind ${concurrency.perKind}, CAIRN_WORKERS ${concurrency.workers}) (${knobs}); ideal = ${count(result.servers)} × latency / concurrency.`,
  );
  return lines;
}

export const applyBenchmark: Benchmark<ApplyResult> = {
  name: 'apply',
  description: `cairn apply of ${count(SERVERS)} servers against the sandbox at ${LATENCIES_MS.join(' and ')} ms latency`,
  run,
  format,
};
