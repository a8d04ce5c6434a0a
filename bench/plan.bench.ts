/**
 * @module Benchmark: `cairn plan -o json` over 10,000 resources in 10 YAML files, with nothing
 * applied, after an apply with no change, and with one field changed — wall time and peak RSS of
 * the real compiled CLI, and where the time goes inside, phase by phase.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadManifestPaths } from '../src/model/manifest-loader.js';
import type { PlanSummary } from '../src/model/plan.js';
import { DEFAULT_TENANT } from '../src/model/resource.js';
import { Store } from '../src/store/store.js';
import { profilingArgs, type Benchmark } from './support/benchmark.js';
import { cell, count, megabytes, seconds, verdict } from './support/figures.js';
import { CHANGED_FIELD_NOTE, writeFleet, type FleetCounts } from './support/fleet.js';
import { canMeasureRss, failureOf, median, runCairnMeasured, runNodeMeasured, type MeasuredRun } from './support/measured-process.js';
import type { PlanPhases } from './support/plan-phases.js';
import { COMPILED_BENCH_DIR } from './support/repo-paths.js';

const RESOURCES = 10_000;
const FILES = 10;
/** Measured runs per scenario (after one unmeasured warm-up run of the CLI for the whole benchmark). */
const RUNS = 5;
const PHASE_RUNS = 3;
const TIMEOUT_MS = 120_000;
/** Issue #11's targets. */
const TARGET_WALL_MS = 500;
const TARGET_RSS_MB = 200;

type ScenarioId = 'nothing-applied' | 'no-change' | 'one-change';

export interface PlanScenarioResult {
  id: ScenarioId;
  label: string;
  /** What the plan should say, to check the scenario is what it claims. */
  expected: Partial<PlanSummary>;
  runs: Array<{ wallMs: number; maxRssKb: number | null; cpuMs: number | null }>;
  medianWallMs: number | null;
  minWallMs: number | null;
  /** Highest peak RSS over the runs (KiB). */
  maxRssKb: number | null;
  rssSource: 'GNU time on the CLI' | 'the phases child script';
  /** Median of each phase over PHASE_RUNS runs of the phases child script. */
  phases: PlanPhases | null;
  error?: string;
}

export interface PlanResult {
  fleet: FleetCounts;
  /** How the "applied" data dir was filled: written straight into the store, not reconciled. */
  setup: { method: string; ms: number };
  /** `cairn --version`: the CLI's startup and module loading alone. */
  startup: { medianWallMs: number | null; maxRssKb: number | null; error?: string };
  scenarios: PlanScenarioResult[];
  targets: { wallMs: number; rssMb: number };
  runsPerScenario: number;
}

/** Fills `dataDir` with the fleet as desired state, the way `cairn apply` records it, without reconciling. */
async function recordFleet(dataDir: string, fleetDir: string): Promise<number> {
  const started = performance.now();
  const loaded = await loadManifestPaths([fleetDir]);
  if (loaded.errors.length > 0) throw new Error(`bench fleet does not load: ${loaded.errors.length} errors`);
  const store = Store.open(dataDir);
  try {
    store.resources.apply(
      DEFAULT_TENANT,
      'api',
      loaded.manifests.map((m) => m.manifest),
    );
  } finally {
    store.close();
  }
  return performance.now() - started;
}

function medianPhases(all: readonly PlanPhases[]): PlanPhases | null {
  const first = all[0];
  if (!first) return null;
  const mid = (pick: (p: PlanPhases) => number): number => median(all.map(pick));
  return {
    startupMs: mid((p) => p.startupMs),
    openMs: mid((p) => p.openMs),
    loadMs: mid((p) => p.loadMs),
    storeMs: mid((p) => p.storeMs),
    planMs: mid((p) => p.planMs),
    renderMs: mid((p) => p.renderMs),
    totalMs: mid((p) => p.totalMs),
    maxRssKb: Math.max(...all.map((p) => p.maxRssKb)),
    summary: first.summary,
    renderedBytes: first.renderedBytes,
  };
}

/** Runs the phases child script `times` times; throws with its stderr when it fails. */
async function measurePhases(manifestDir: string, dataDir: () => string, times: number): Promise<PlanPhases[]> {
  const script = join(COMPILED_BENCH_DIR, 'support', 'plan-phases.js');
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-bench-phases-'));
  try {
    const all: PlanPhases[] = [];
    for (let i = 0; i < times; i++) {
      const out = join(scratch, `phases-${i}.json`);
      const run = await runNodeMeasured(script, ['--data-dir', dataDir(), '--out', out, '-f', manifestDir], { stdout: 'discard', timeoutMs: TIMEOUT_MS });
      const failure = failureOf(run);
      if (failure !== undefined) throw new Error(`phases child: ${failure}`);
      all.push(JSON.parse(readFileSync(out, 'utf8')) as PlanPhases);
    }
    return all;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

interface Scenario {
  id: ScenarioId;
  label: string;
  manifestDir: string;
  /** The data dir for one run (a fresh empty one each time for "nothing applied"). */
  dataDir: () => string;
  expected: Partial<PlanSummary>;
}

async function runScenario(scenario: Scenario, progress: (line: string) => void): Promise<PlanScenarioResult> {
  const result: PlanScenarioResult = {
    id: scenario.id,
    label: scenario.label,
    expected: scenario.expected,
    runs: [],
    medianWallMs: null,
    minWallMs: null,
    maxRssKb: null,
    rssSource: canMeasureRss() ? 'GNU time on the CLI' : 'the phases child script',
    phases: null,
  };
  const plan = (nodeArgs: readonly string[] = []): Promise<MeasuredRun> =>
    runCairnMeasured(['plan', '-f', scenario.manifestDir, '--data-dir', scenario.dataDir(), '-o', 'json'], { stdout: 'discard', timeoutMs: TIMEOUT_MS, nodeArgs });
  const profiling = profilingArgs(`plan-${scenario.id}`);
  if (profiling.length > 0) await plan(profiling); // a run of its own, so that profiling slows no measured run
  for (let run = 1; run <= RUNS; run++) {
    const measured = await plan();
    const failure = failureOf(measured);
    if (failure !== undefined) {
      result.error = `cairn plan failed: ${failure}`;
      return result;
    }
    result.runs.push({ wallMs: measured.wallMs, maxRssKb: measured.maxRssKb, cpuMs: measured.cpuMs });
    progress(`plan ${scenario.label}: run ${run}/${RUNS} ${seconds(measured.wallMs)} ${megabytes(measured.maxRssKb)}`);
  }
  result.medianWallMs = median(result.runs.map((r) => r.wallMs));
  result.minWallMs = Math.min(...result.runs.map((r) => r.wallMs));
  const rss = result.runs.flatMap((r) => (r.maxRssKb === null ? [] : [r.maxRssKb]));
  result.maxRssKb = rss.length > 0 ? Math.max(...rss) : null;
  try {
    result.phases = medianPhases(await measurePhases(scenario.manifestDir, scenario.dataDir, PHASE_RUNS));
    if (result.maxRssKb === null) result.maxRssKb = result.phases?.maxRssKb ?? null;
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
  }
  return result;
}

async function run(progress: (line: string) => void): Promise<PlanResult> {
  const root = mkdtempSync(join(tmpdir(), 'cairn-bench-plan-'));
  try {
    const fleetDir = join(root, 'fleet');
    const changedDir = join(root, 'fleet-one-change');
    const fleet = writeFleet(fleetDir, { resources: RESOURCES, files: FILES });
    writeFleet(changedDir, { resources: RESOURCES, files: FILES, changeOneField: true });
    const total = fleet.providers + fleet.servers + fleet.databases + fleet.apps;
    progress(`plan: wrote ${count(total)} resources in ${fleet.files} files (${megabytes(fleet.bytes / 1024)})`);

    const appliedDir = join(root, 'data-applied');
    const setupMs = await recordFleet(appliedDir, fleetDir);
    progress(`plan: recorded them in a data dir with store.resources.apply in ${seconds(setupMs)}`);

    const startupRuns: MeasuredRun[] = [];
    for (let i = 0; i <= RUNS; i++) startupRuns.push(await runCairnMeasured(['--version'], { stdout: 'discard', timeoutMs: TIMEOUT_MS }));
    const startupFailure = startupRuns.map((r) => failureOf(r)).find((f) => f !== undefined);
    const measuredStartup = startupRuns.slice(1);
    const startupRss = measuredStartup.flatMap((r) => (r.maxRssKb === null ? [] : [r.maxRssKb]));

    // One warm-up run, so that the first measured run does not pay for a cold file cache.
    const warmUp = await runCairnMeasured(['plan', '-f', fleetDir, '--data-dir', join(root, 'data-warm-up'), '-o', 'json'], { stdout: 'discard', timeoutMs: TIMEOUT_MS });
    progress(`plan: warm-up run ${seconds(warmUp.wallMs)}`);

    let emptyDirs = 0;
    const scenarios: Scenario[] = [
      {
        id: 'nothing-applied',
        label: 'nothing applied',
        manifestDir: fleetDir,
        dataDir: () => join(root, `data-empty-${emptyDirs++}`),
        expected: { create: total },
      },
      { id: 'no-change', label: 'applied, no change', manifestDir: fleetDir, dataDir: () => appliedDir, expected: { noop: total } },
      { id: 'one-change', label: 'one field changed', manifestDir: changedDir, dataDir: () => appliedDir, expected: { update: 1, noop: total - 1 } },
    ];
    const results: PlanScenarioResult[] = [];
    for (const scenario of scenarios) results.push(await runScenario(scenario, progress));
    return {
      fleet,
      setup: { method: 'store.resources.apply of all manifests in one call (recorded as desired state, not reconciled against a vendor)', ms: setupMs },
      startup: {
        medianWallMs: startupFailure === undefined ? median(measuredStartup.map((r) => r.wallMs)) : null,
        maxRssKb: startupRss.length > 0 ? Math.max(...startupRss) : null,
        ...(startupFailure === undefined ? {} : { error: startupFailure }),
      },
      scenarios: results,
      targets: { wallMs: TARGET_WALL_MS, rssMb: TARGET_RSS_MB },
      runsPerScenario: RUNS,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function summaryText(summary: PlanSummary): string {
  return (Object.entries(summary) as Array<[keyof PlanSummary, number]>)
    .filter(([, n]) => n > 0)
    .map(([action, n]) => `${action} ${count(n)}`)
    .join(' · ');
}

function planMatches(expected: Partial<PlanSummary>, summary: PlanSummary): boolean {
  return (Object.keys(summary) as Array<keyof PlanSummary>).every((action) => summary[action] === (expected[action] ?? 0));
}

function format(result: PlanResult): string[] {
  const { fleet, targets } = result;
  const total = fleet.providers + fleet.servers + fleet.databases + fleet.apps;
  const rssKbLimit = (targets.rssMb * 1e6) / 1024;
  const lines = [
    `plan ${count(total)} resources (target < ${seconds(targets.wallMs, 1)}, < ${targets.rssMb} MB)`,
    `  ${count(fleet.providers)} providers · ${count(fleet.servers)} servers · ${count(fleet.databases)} databases · ${count(fleet.apps)} apps in ${fleet.files} files (${megabytes(fleet.bytes / 1024)})`,
    `  ${cell('', 20)}  ${cell('median', 7, 'right')}  ${cell('min', 7, 'right')}  ${cell('peak RSS', 8, 'right')}  ${cell('target', 9)}  in-process phases (median of ${PHASE_RUNS})`,
  ];
  for (const s of result.scenarios) {
    const p = s.phases;
    const phases = p
      ? `start ${seconds(p.startupMs)} · load ${seconds(p.loadMs)} · store ${seconds(p.storeMs)} · plan ${seconds(p.planMs)} · render ${seconds(p.renderMs)}`
      : '';
    const checks = `${verdict(s.medianWallMs, targets.wallMs)}/${verdict(s.maxRssKb, rssKbLimit)}`;
    lines.push(
      `  ${cell(s.label, 20)}  ${cell(seconds(s.medianWallMs), 7, 'right')}  ${cell(seconds(s.minWallMs), 7, 'right')}  ${cell(megabytes(s.maxRssKb), 8, 'right')}  ${cell(checks, 9)}  ${phases}`,
    );
    if (p) {
      const check = planMatches(s.expected, p.summary) ? '' : `  UNEXPECTED, wanted ${summaryText({ create: 0, import: 0, update: 0, replace: 0, delete: 0, noop: 0, ...s.expected })}`;
      lines.push(`  ${cell('', 20)}  the plan: ${summaryText(p.summary)} (${megabytes(p.renderedBytes / 1024)} of JSON)${check}`);
    }
    if (s.error) lines.push(...s.error.split('\n').map((l) => `  ${cell('', 20)}  ! ${l}`));
  }
  lines.push(
    `  ${cell('cairn --version', 20)}  ${cell(seconds(result.startup.medianWallMs), 7, 'right')}  ${cell('', 7)}  ${cell(megabytes(result.startup.maxRssKb), 8, 'right')}  ${cell('', 9)}  the CLI's startup alone`,
    `  wall: median of ${result.runsPerScenario} runs of \`node bin/cairn.js plan -f DIR --data-dir D -o json > /dev/null\` (compiled, after one warm-up run);`,
    `  peak RSS: highest of those runs, from ${result.scenarios[0]?.rssSource ?? '?'}; target: median wall / peak RSS against the targets (ok or OVER).`,
    `  phases: a child script doing the CLI's steps (src/cli/commands/plan.ts) with timers; start = node's startup and loading the modules it needs.`,
    `  "applied": the ${count(total)} resources were written straight into the store with store.resources.apply (${seconds(result.setup.ms)}), not reconciled against a vendor.`,
    `  "one field changed": ${CHANGED_FIELD_NOTE}.`,
    `  manifest cache: "nothing applied" gets a new data dir each run, so every run parses all files; in the applied data dir the first`,
    `  no-change run parses and caches them (run 1 above), later runs read them from the cache; "one field changed" parses its one changed file.`,
  );
  return lines;
}

export const planBenchmark: Benchmark<PlanResult> = {
  name: 'plan',
  description: `cairn plan over ${count(RESOURCES)} resources: nothing applied, no change, one change`,
  run,
  format,
};
