/**
 * @module Benchmark: the compiled CLI's start-up, hyperfine-like — `cairn --version` and
 * `cairn validate -f` of one manifest file, each run 10 times after a warm-up (spawnSync, wall
 * time, median and min), beside bare `node -e 0` on the same machine (the floor no command can
 * go under) and the stale-dist check bin/cairn.js makes on every run in a checkout.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Benchmark } from './support/benchmark.js';
import { verdict } from './support/figures.js';
import { benchEnv, median } from './support/measured-process.js';
import { CAIRN_BIN, REPO_ROOT } from './support/repo-paths.js';

const RUNS = 10;
const TARGET_MS = 100;
const FRESHNESS_TARGET_MS = 10;

const ONE_FILE = `apiVersion: cairn.dev/v1
kind: Provider
metadata: { name: here }
spec: { vendor: local }
`;

interface Timing {
  label: string;
  runsMs: number[];
  medianMs: number;
  minMs: number;
  /** Only for cairn commands: the target they are held to. */
  targetMs?: number;
  error?: string;
}

/** Runs `node ...args` RUNS times after one warm-up run, timing each start to exit. */
function time(label: string, args: readonly string[], targetMs?: number): Timing {
  const runsMs: number[] = [];
  let error: string | undefined;
  for (let i = 0; i <= RUNS; i++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { cwd: REPO_ROOT, env: benchEnv(), encoding: 'utf8' });
    const ms = performance.now() - started;
    if (result.status !== 0) {
      error = `exit ${String(result.status)}: ${result.stderr.trim().split('\n').slice(-3).join(' / ')}`;
      break;
    }
    if (i > 0) runsMs.push(ms);
  }
  return { label, runsMs, medianMs: median(runsMs), minMs: Math.min(...runsMs), ...(targetMs !== undefined ? { targetMs } : {}), ...(error !== undefined ? { error } : {}) };
}

/** The check bin/cairn.js makes in a checkout, in this process: median of RUNS, after one warm-up. */
async function freshnessCheck(): Promise<Timing> {
  // From the repository root: the benchmarks also run compiled, from dist/bench/.
  const module = (await import(pathToFileURL(join(REPO_ROOT, 'bin', 'dist-freshness.js')).href)) as { staleDistReason: (root: string) => string | undefined };
  const { staleDistReason } = module;
  const runsMs: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const started = performance.now();
    staleDistReason(REPO_ROOT);
    if (i > 0) runsMs.push(performance.now() - started);
  }
  return { label: 'stale-dist check (stat of src/ and schemas/)', runsMs, medianMs: median(runsMs), minMs: Math.min(...runsMs), targetMs: FRESHNESS_TARGET_MS };
}

interface CliResult {
  runs: number;
  timings: Timing[];
}

async function run(progress: (line: string) => void): Promise<CliResult> {
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-bench-cli-'));
  try {
    const file = join(scratch, 'provider.yaml');
    writeFileSync(file, ONE_FILE);
    progress(`timing node -e 0, cairn --version and cairn validate -f (${RUNS} runs each)`);
    return {
      runs: RUNS,
      timings: [
        time('node -e 0 (the floor)', ['-e', '0']),
        time('cairn --version', [CAIRN_BIN, '--version'], TARGET_MS),
        time('cairn validate -f provider.yaml', [CAIRN_BIN, 'validate', '-f', file], TARGET_MS),
        await freshnessCheck(),
      ],
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const ms = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : '—');

function format(result: CliResult): string[] {
  return [
    `compiled CLI start-up (spawnSync, wall time, median of ${result.runs} after a warm-up)`,
    ...result.timings.map((t) => {
      const target = t.targetMs === undefined ? '' : `  target < ${t.targetMs} ms: ${verdict(t.medianMs, t.targetMs)}`;
      return `  ${t.label.padEnd(46)} median ${ms(t.medianMs).padStart(9)}  min ${ms(t.minMs).padStart(9)}${target}${t.error ? `  ! ${t.error}` : ''}`;
    }),
  ];
}

export const cliBenchmark: Benchmark<CliResult> = {
  name: 'cli',
  description: `compiled CLI start-up: cairn --version and cairn validate -f one file (target < ${TARGET_MS} ms each)`,
  run,
  format,
};
