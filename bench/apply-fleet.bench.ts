/**
 * @module Benchmark: `cairn apply --wait --auto-approve` of a mixed fleet (providers, servers,
 * databases, apps; bench/support/fleet.ts) against the sandbox cairn starts in-process, with
 * CAIRN_SANDBOX_PROVISION_MS=0, at 1,000, 5,000, 10,000 and 20,000 resources: wall time and peak
 * RSS of the real compiled CLI from start to exit, and time per resource to show the growth.
 * BENCH_APPLY_FLEET_SIZES (e.g. "1000,10000") and BENCH_APPLY_FLEET_RUNS (median of that many,
 * default 1) choose what runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profilingArgs, type Benchmark } from './support/benchmark.js';
import { cell, count, megabytes, seconds, verdict } from './support/figures.js';
import { writeFleet, type FleetCounts } from './support/fleet.js';
import { failureOf, median, runCairnMeasured } from './support/measured-process.js';

const DEFAULT_SIZES = [1_000, 5_000, 10_000, 20_000];
const RESOURCES_PER_FILE = 100;
const TIMEOUT_MS = 900_000;
/** Targets of issue #11: 1,000 in under 2 s; 10,000 in under 30 s and 300 MB. */
const TARGETS: Record<number, { wallMs: number; rssMb?: number }> = { 1_000: { wallMs: 2_000 }, 10_000: { wallMs: 30_000, rssMb: 300 } };

export interface FleetApplyRun {
  wallMs: number;
  maxRssKb: number | null;
  cpuMs: number | null;
  ok: boolean;
  error?: string;
}

export interface FleetApplySize {
  resources: number;
  fleet: FleetCounts;
  runs: FleetApplyRun[];
  medianWallMs: number | null;
  maxRssKb: number | null;
}

export interface FleetApplyResult {
  sizes: FleetApplySize[];
  runsPerSize: number;
}

function sizesFromEnv(env: NodeJS.ProcessEnv = process.env): number[] {
  const raw = env.BENCH_APPLY_FLEET_SIZES;
  if (raw === undefined || raw.trim() === '') return DEFAULT_SIZES;
  const sizes = raw.split(',').map((s) => Number(s.trim()));
  const bad = sizes.find((n) => !Number.isInteger(n) || n < RESOURCES_PER_FILE);
  if (bad !== undefined) throw new Error(`BENCH_APPLY_FLEET_SIZES: "${raw}" must be whole numbers of resources, each at least ${RESOURCES_PER_FILE}`);
  return sizes;
}

function runsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BENCH_APPLY_FLEET_RUNS;
  if (raw === undefined || raw === '') return 1;
  const runs = Number(raw);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`BENCH_APPLY_FLEET_RUNS: "${raw}" must be a whole number of runs, at least 1`);
  return runs;
}

async function applyOnce(manifests: string, fleet: FleetCounts, nodeArgs: readonly string[] = []): Promise<FleetApplyRun> {
  const root = mkdtempSync(join(tmpdir(), 'cairn-bench-apply-fleet-'));
  try {
    // Each namespace's provider is cloud-0..N with credentialsRef.env CLOUD_<i>_TOKEN (the sandbox takes any token).
    const tokens = Object.fromEntries(Array.from({ length: Math.max(1, Math.ceil(fleet.providers / fleet.files)) }, (_, i) => [`CLOUD_${i}_TOKEN`, 'bench']));
    const run = await runCairnMeasured(['apply', '-f', manifests, '--auto-approve', '--wait', '--data-dir', join(root, 'data')], {
      stdout: 'discard',
      timeoutMs: TIMEOUT_MS,
      nodeArgs,
      env: { ...tokens, CAIRN_SANDBOX_PROVISION_MS: '0', CAIRN_LOG_LEVEL: 'warn' },
    });
    const error = failureOf(run);
    return { wallMs: run.wallMs, maxRssKb: run.maxRssKb, cpuMs: run.cpuMs, ok: error === undefined, ...(error === undefined ? {} : { error }) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function run(progress: (line: string) => void): Promise<FleetApplyResult> {
  const runsPerSize = runsFromEnv();
  const sizes: FleetApplySize[] = [];
  for (const resources of sizesFromEnv()) {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-fleet-'));
    try {
      const manifests = join(dir, 'manifests');
      const fleet = writeFleet(manifests, { resources, files: Math.max(1, Math.round(resources / RESOURCES_PER_FILE)) });
      const profiling = profilingArgs(`apply-fleet-${resources}`);
      if (profiling.length > 0) {
        const profiled = await applyOnce(manifests, fleet, profiling);
        progress(`apply --wait ${count(resources)} mixed: profiled run ${seconds(profiled.wallMs)}`);
      }
      const runs: FleetApplyRun[] = [];
      for (let attempt = 1; attempt <= runsPerSize; attempt++) {
        const result = await applyOnce(manifests, fleet);
        runs.push(result);
        progress(`apply --wait ${count(resources)} mixed: run ${attempt} ${seconds(result.wallMs)} · peak RSS ${megabytes(result.maxRssKb)}${result.ok ? '' : ' (failed)'}`);
        if (!result.ok) break;
      }
      const ok = runs.filter((r) => r.ok);
      const rss = ok.map((r) => r.maxRssKb).filter((kb): kb is number => kb !== null);
      sizes.push({
        resources,
        fleet,
        runs,
        medianWallMs: ok.length > 0 ? median(ok.map((r) => r.wallMs)) : null,
        maxRssKb: rss.length > 0 ? Math.max(...rss) : null,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { sizes, runsPerSize };
}

function format(result: FleetApplyResult): string[] {
  const lines = [`apply --wait of a mixed fleet, in-process sandbox, provisioning 0 ms (median of ${result.runsPerSize}; targets: 1,000 < 2 s; 10,000 < 30 s and < 300 MB)`];
  for (const size of result.sizes) {
    const target = TARGETS[size.resources];
    const wallCheck = target ? verdict(size.medianWallMs, target.wallMs) : '';
    const rssCheck = target?.rssMb !== undefined ? verdict(size.maxRssKb === null ? null : size.maxRssKb / 1024, target.rssMb) : '';
    const perResource = size.medianWallMs === null ? '–' : `${(size.medianWallMs / size.resources).toFixed(2)} ms/resource`;
    const f = size.fleet;
    lines.push(
      `  ${cell(count(size.resources), 7, 'right')}  ${cell(seconds(size.medianWallMs), 8, 'right')} ${cell(wallCheck, 4)}  peak RSS ${cell(megabytes(size.maxRssKb), 8, 'right')} ${cell(rssCheck, 4)}  ${cell(perResource, 18)}  (${count(f.providers)} providers, ${count(f.servers)} servers, ${count(f.databases)} databases, ${count(f.apps)} apps)`,
    );
    for (const r of size.runs) if (r.error) lines.push(...r.error.split('\n').map((l) => `           ! ${l}`));
  }
  lines.push(
    '  time: `node bin/cairn.js apply -f DIR --auto-approve --wait --data-dir D` (compiled), start to exit, exit 0 required; peak RSS by GNU time;',
    `  ${RESOURCES_PER_FILE} resources per file and namespace; the sandbox cloud runs inside cairn (no spec.endpoint), so its work is in the figures.`,
  );
  return lines;
}

export const applyFleetBenchmark: Benchmark<FleetApplyResult> = {
  name: 'apply-fleet',
  description: 'cairn apply --wait of 1k/5k/10k/20k mixed resources against the in-process sandbox (provisioning 0 ms)',
  run,
  format,
};
