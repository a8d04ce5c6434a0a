/**
 * @module Runs the real `cairn` executable as a measured child process: wall time from spawn to
 * exit, and peak RSS through GNU time (`/usr/bin/time -f '%e %M'`) when the machine has it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CAIRN_BIN, REPO_ROOT } from './repo-paths.js';

const GNU_TIME = '/usr/bin/time';
const TAIL_BYTES = 4096;

export interface MeasuredRun {
  wallMs: number;
  /** Peak resident set of the node process, in KiB; null without GNU time. */
  maxRssKb: number | null;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Killed after `timeoutMs`. */
  timedOut: boolean;
  /** Lines written to stdout (0 when stdout was discarded). */
  stdoutLines: number;
  stdoutTail: string;
  stderrTail: string;
}

export interface MeasureOptions {
  /** Added to the child's environment (see benchEnv). */
  env?: NodeJS.ProcessEnv;
  /** `discard` sends stdout to /dev/null, like `> /dev/null`. */
  stdout: 'discard' | 'capture';
  timeoutMs: number;
  /** Flags for node itself, e.g. `--cpu-prof`. */
  nodeArgs?: readonly string[];
}

/** Process groups of measured children still running, killed if the benchmark is interrupted. */
const liveGroups = new Set<number>();
let interruptHandled = false;

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function killLiveGroupsOnInterrupt(): void {
  if (interruptHandled) return;
  interruptHandled = true;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const pid of liveGroups) killGroup(pid);
      process.exit(130);
    });
  }
}

/** True when GNU time can report the child's peak RSS. */
export function canMeasureRss(): boolean {
  return existsSync(GNU_TIME);
}

/** The environment a measured child gets: ours, without colour and without a default data dir. */
export function benchEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  delete env.FORCE_COLOR;
  delete env.CAIRN_DATA_DIR;
  return env;
}

function keepTail(text: string): string {
  return text.length > TAIL_BYTES ? text.slice(-TAIL_BYTES) : text;
}

/** The last `lines` lines of a text, for failure reports. */
export function lastLines(text: string, lines: number): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** Parses GNU time's `%e %M` line (seconds, KiB). */
function readRss(file: string): number | null {
  if (!existsSync(file)) return null;
  const fields = readFileSync(file, 'utf8').trim().split('\n').pop()?.split(/\s+/) ?? [];
  const kb = Number(fields[1]);
  return Number.isFinite(kb) ? kb : null;
}

/** Runs `node bin/cairn.js ...args` and measures it. Never throws for a failing command: check `code`. */
export async function runCairnMeasured(args: readonly string[], options: MeasureOptions): Promise<MeasuredRun> {
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-bench-time-'));
  const timeFile = join(scratch, 'time.txt');
  const node = [process.execPath, ...(options.nodeArgs ?? []), CAIRN_BIN, ...args];
  const [command, ...argv] = canMeasureRss() ? [GNU_TIME, '-f', '%e %M', '-o', timeFile, ...node] : node;
  let stdout = '';
  let stderr = '';
  let stdoutLines = 0;
  let timedOut = false;
  try {
    killLiveGroupsOnInterrupt();
    const started = performance.now();
    // Its own process group, so a timeout kills node as well as GNU time wrapping it.
    const child = spawn(command ?? process.execPath, argv, {
      cwd: REPO_ROOT,
      env: benchEnv(options.env),
      stdio: ['ignore', options.stdout === 'discard' ? 'ignore' : 'pipe', 'pipe'],
      detached: true,
    });
    const pid = child.pid;
    if (pid !== undefined) liveGroups.add(pid);
    child.stdout?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) stdoutLines += 1;
      stdout = keepTail(stdout + text);
    });
    child.stderr?.on('data', (chunk: Buffer) => (stderr = keepTail(stderr + chunk.toString())));
    const { code, signal, wallMs } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; wallMs: number }>((resolve, reject) => {
      let exited: { code: number | null; signal: NodeJS.Signals | null; wallMs: number } | undefined;
      const timer = setTimeout(() => {
        timedOut = true;
        if (pid !== undefined) killGroup(pid);
      }, options.timeoutMs);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (exitCode, exitSignal) => (exited = { code: exitCode, signal: exitSignal, wallMs: performance.now() - started }));
      child.once('close', () => {
        clearTimeout(timer);
        if (pid !== undefined) liveGroups.delete(pid);
        resolve(exited ?? { code: child.exitCode, signal: child.signalCode, wallMs: performance.now() - started });
      });
    });
    return { wallMs, maxRssKb: readRss(timeFile), code, signal, timedOut, stdoutLines, stdoutTail: stdout, stderrTail: stderr };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The median of some numbers (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}
