/**
 * @module Where the benchmarks find things: the repository root (found from this file, whether it
 * runs from bench/ through tsx or compiled under dist/bench/), the `cairn` executable and the
 * compiled CLI that `npm run build` writes.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin', 'cairn.js'))) return dir;
    if (dirname(dir) === dir) throw new Error(`bench: no repository root above ${start}`);
  }
}

export const REPO_ROOT: string = findRepoRoot(import.meta.dirname);
export const CAIRN_BIN: string = join(REPO_ROOT, 'bin', 'cairn.js');
/** What bin/cairn.js runs (after checking it is not older than src/). */
export const COMPILED_CLI: string = join(REPO_ROOT, 'dist', 'cli', 'main.js');
/** The benchmarks compiled by bench/tsconfig.bench.json, so their child scripts run without tsx. */
export const COMPILED_BENCH_DIR: string = join(REPO_ROOT, 'dist', 'bench');
export const RESULTS_DIR: string = join(REPO_ROOT, 'bench', 'results');
