/**
 * @module `npm run bench [-- NAME...]`: builds cairn (`npm run build`, so the CLI is measured
 * compiled) and the benchmarks' child scripts, runs each benchmark in its own fresh child
 * process, prints a report and writes it as JSON to bench/results/latest.json.
 * BENCH_CPU_PROF=DIR also writes CPU profiles of the measured cairn processes into DIR.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { BENCHMARKS } from './benchmarks.js';
import { summariseProfileFolders } from './support/cpu-profile-summary.js';
import { seconds } from './support/figures.js';
import { COMPILED_BENCH_DIR, REPO_ROOT, RESULTS_DIR } from './support/repo-paths.js';

/** A load average above this at the start means the figures share the machine with other work. */
const BUSY_LOAD = 0.7;
/** Functions listed per CPU profile with BENCH_CPU_PROF. */
const PROFILE_TOP = 12;

interface Environment {
  date: string;
  node: string;
  cpus: number;
  cpuModel: string;
  platform: string;
  memoryMb: number;
  commit: string;
  /** The 1-minute load average when the benchmarks started: above ~0.5, something else was running. */
  loadAverage: number;
}

interface Results extends Environment {
  durationMs: number;
  benchmarks: Record<string, unknown>;
  /** Benchmarks whose child process failed, with why. */
  failures: Record<string, string>;
}

function usage(): string {
  return `usage: npm run bench [-- NAME...]\n${BENCHMARKS.map((b) => `  ${b.name.padEnd(8)} ${b.description}`).join('\n')}`;
}

/** Runs a build step, showing its output only if it fails. */
function buildStep(label: string, command: string, args: readonly string[]): void {
  process.stderr.write(`${label}\n`);
  const result = spawnSync(command, args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) {
    throw new Error(`${label} failed (${result.error?.message ?? `exit ${String(result.status)}`}):\n${result.stdout}${result.stderr}`);
  }
}

function commit(): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown';
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO_ROOT, encoding: 'utf8' });
  return `${head.stdout.trim()}${dirty.stdout.trim() === '' ? '' : ' (with uncommitted changes)'}`;
}

function environment(loadAverage: number): Environment {
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    platform: `${platform()} ${release()}`,
    memoryMb: Math.round(totalmem() / 1e6),
    commit: commit(),
    loadAverage,
  };
}

/** Runs one benchmark in a fresh compiled child process; its progress shows on stderr. */
function runInChild(name: string, out: string): Promise<void> {
  const child = spawn(process.execPath, [join(COMPILED_BENCH_DIR, 'support', 'bench-child.js'), name, out], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => (code === 0 ? resolve() : reject(new Error(`the ${name} benchmark's process ended with ${signal ?? `exit ${String(code)}`}`))));
  });
}

async function main(): Promise<number> {
  const names = process.argv.slice(2);
  if (names.includes('--help') || names.includes('-h')) {
    console.log(usage());
    return 0;
  }
  const unknown = names.filter((n) => !BENCHMARKS.some((b) => b.name === n));
  if (unknown.length > 0) {
    console.error(`unknown benchmark ${unknown.join(', ')}\n${usage()}`);
    return 1;
  }
  const selected = BENCHMARKS.filter((b) => names.length === 0 || names.includes(b.name));
  const started = performance.now();
  const loadAtStart = loadavg()[0] ?? 0;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  buildStep('building cairn (npm run build)', npm, ['run', 'build']);
  buildStep('building the benchmarks (bench/tsconfig.bench.json)', process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join('bench', 'tsconfig.bench.json')]);

  const env = environment(loadAtStart);
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-bench-results-'));
  const results: Results = { ...env, durationMs: 0, benchmarks: {}, failures: {} };
  try {
    for (const benchmark of selected) {
      process.stderr.write(`running ${benchmark.name}: ${benchmark.description}\n`);
      const out = join(scratch, `${benchmark.name}.json`);
      try {
        await runInChild(benchmark.name, out);
        results.benchmarks[benchmark.name] = JSON.parse(readFileSync(out, 'utf8')) as unknown;
      } catch (error) {
        results.failures[benchmark.name] = error instanceof Error ? error.message : String(error);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  results.durationMs = performance.now() - started;

  const lines = [
    '',
    `cairn benchmarks · ${env.date} · node ${env.node} · ${env.cpus} CPUs (${env.cpuModel}) · ${env.platform} · commit ${env.commit}`,
    ...(env.loadAverage > BUSY_LOAD
      ? [`note: load average ${env.loadAverage.toFixed(2)} when the benchmarks started: something else was using the CPUs, so the figures are noisy`]
      : []),
    '',
  ];
  for (const benchmark of selected) {
    const result = results.benchmarks[benchmark.name];
    const failure = results.failures[benchmark.name];
    lines.push(...(result !== undefined ? benchmark.format(result) : [`${benchmark.name}: FAILED: ${failure ?? 'no result'}`]), '');
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, 'latest.json');
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  lines.push(`total ${seconds(results.durationMs, 0)}; results in ${relative(REPO_ROOT, file)}`);
  const profiles = process.env.BENCH_CPU_PROF;
  if (profiles) {
    lines.push(
      '',
      `CPU profiles of extra, unmeasured runs in ${profiles}; the top costs (more with npx tsx bench/support/cpu-profile-summary.ts FILE --top N):`,
      ...summariseProfileFolders(resolve(profiles), PROFILE_TOP),
    );
  }
  console.log(lines.join('\n'));
  return Object.keys(results.failures).length === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  },
);
