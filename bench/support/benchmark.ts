/**
 * @module What a benchmark is: a name for the command line, a run that measures (in a fresh
 * child process, reporting progress on stderr) and returns JSON-safe results, and a format that
 * turns those results into the lines of the report.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface Benchmark<R> {
  /** As typed after `npm run bench --`. */
  name: string;
  /** One line saying what it measures. */
  description: string;
  run(progress: (line: string) => void): Promise<R>;
  format(result: R): string[];
}

/**
 * Extra node flags for a measured cairn process: `--cpu-prof` into BENCH_CPU_PROF/<label>/
 * when that variable names a folder (profiling slows the process; the figures are then not
 * comparable with unprofiled runs). Summarise with bench/support/cpu-profile-summary.ts.
 */
export function profilingArgs(label: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const root = env.BENCH_CPU_PROF;
  if (root === undefined || root === '') return [];
  const dir = join(resolve(root), label);
  mkdirSync(dir, { recursive: true });
  return ['--cpu-prof', '--cpu-prof-dir', dir];
}
