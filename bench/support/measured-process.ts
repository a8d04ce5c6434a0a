/**
 * @module Runs a node script — the real `cairn` executable, or a benchmark's child script — as a
 * measured child process: wall time from spawn to exit, when chosen lines first appeared on
 * stdout, and peak RSS and CPU time through GNU time (`/usr/bin/time`) when the machine has it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CAIRN_BIN, REPO_ROOT } from './repo-paths.js';

const GNU_TIME = '/usr/bin/time';
const TAIL_CHARS = 4096;

export interface MeasuredRun {
  wallMs: number;
  /** Peak resident set of the node process, in KiB; null without GNU time. */
  maxRssKb: number | null;
  /** User + system CPU time of the node process; null without GNU time. */
  cpuMs: number | null;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Killed after `timeoutMs`. */
  timedOut: boolean;
  /** Milliseconds from spawn to the first stdout line matching each of `marks` (absent: never seen). */
  marks: Record<string, number>;
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
  /** Names of moments to note, each the first stdout line it matches (stdout must be captured). */
  marks?: Readonly<Record<string, RegExp>>;
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

/**
 * The environment a measured child gets: ours (so CAIRN_* knobs set by whoever runs the
 * benchmarks pass through), without colour or a default data dir, and without
 * CAIRN_FROM_SOURCE, so that bin/cairn.js runs the compiled dist/ as users do.
 */
export function benchEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  delete env.CAIRN_FROM_SOURCE;
  delete env.FORCE_COLOR;
  delete env.CAIRN_DATA_DIR;
  return env;
}

function keepTail(text: string): string {
  return text.length > TAIL_CHARS ? text.slice(-TAIL_CHARS) : text;
}

/** The last `lines` lines of a text, for failure reports. */
export function lastLines(text: string, lines: number): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** Parses GNU time's `%e %M %U %S` line (seconds, KiB, seconds, seconds); it comes last in the file. */
function readTimeFile(file: string): { maxRssKb: number | null; cpuMs: number | null } {
  if (!existsSync(file)) return { maxRssKb: null, cpuMs: null };
  const fields = (readFileSync(file, 'utf8').trim().split('\n').pop() ?? '').split(/\s+/).map(Number);
  const [, rss, user, system] = fields;
  return {
    maxRssKb: rss !== undefined && Number.isFinite(rss) ? rss : null,
    cpuMs: user !== undefined && system !== undefined && Number.isFinite(user + system) ? (user + system) * 1000 : null,
  };
}

/** Runs `node [nodeArgs] script ...args` and measures it. Never throws for a failing command: check `code`. */
export async function runNodeMeasured(script: string, args: readonly string[], options: MeasureOptions): Promise<MeasuredRun> {
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-bench-time-'));
  const timeFile = join(scratch, 'time.txt');
  const node = [process.execPath, ...(options.nodeArgs ?? []), script, ...args];
  const [command, ...argv] = canMeasureRss() ? [GNU_TIME, '-f', '%e %M %U %S', '-o', timeFile, ...node] : node;
  const marks: Record<string, number> = {};
  const pending = Object.entries(options.marks ?? {});
  let stdout = '';
  let partialLine = '';
  let stderr = '';
  let stdoutLines = 0;
  let timedOut = false;
  try {
    killLiveGroupsOnInterrupt();
    const started = performance.now();
    // Its own process group, so that a timeout kills node as well as GNU time wrapping it.
    const child = spawn(command ?? process.execPath, argv, {
      cwd: REPO_ROOT,
      env: benchEnv(options.env),
      stdio: ['ignore', options.stdout === 'discard' ? 'ignore' : 'pipe', 'pipe'],
      detached: true,
    });
    const pid = child.pid;
    if (pid !== undefined) liveGroups.add(pid);
    child.stdout?.on('data', (chunk: Buffer) => {
      const at = performance.now() - started;
      const text = chunk.toString();
      stdout = keepTail(stdout + text);
      const lines = (partialLine + text).split('\n');
      partialLine = lines.pop() ?? '';
      stdoutLines += lines.length;
      if (pending.length === 0) return;
      for (const line of lines) {
        for (let i = pending.length - 1; i >= 0; i--) {
          const [name, pattern] = pending[i] ?? ['', /$^/];
          if (pattern.test(line)) {
            marks[name] = at;
            pending.splice(i, 1);
          }
        }
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (stderr = keepTail(stderr + chunk.toString())));
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; wallMs: number }>((resolve, reject) => {
      let exited: { code: number | null; signal: NodeJS.Signals | null; wallMs: number } | undefined;
      const timer = setTimeout(() => {
        timedOut = true;
        if (pid !== undefined) killGroup(pid);
      }, options.timeoutMs);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => (exited = { code, signal, wallMs: performance.now() - started }));
      child.once('close', () => {
        clearTimeout(timer);
        if (pid !== undefined) liveGroups.delete(pid);
        resolve(exited ?? { code: child.exitCode, signal: child.signalCode, wallMs: performance.now() - started });
      });
    });
    if (partialLine !== '') stdoutLines += 1;
    return { ...exit, ...readTimeFile(timeFile), timedOut, marks, stdoutLines, stdoutTail: stdout, stderrTail: stderr };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Runs `node bin/cairn.js ...args` (compiled, see benchEnv) and measures it. */
export function runCairnMeasured(args: readonly string[], options: MeasureOptions): Promise<MeasuredRun> {
  return runNodeMeasured(CAIRN_BIN, args, options);
}

/** What went wrong with a run, or undefined when it exited 0: the exit and the stderr tail. */
export function failureOf(run: MeasuredRun, lines = 8): string | undefined {
  if (run.code === 0 && !run.timedOut) return undefined;
  const how = run.timedOut ? 'timed out (killed)' : run.signal ? `killed by ${run.signal}` : `exit ${String(run.code)}`;
  const tail = lastLines(run.stderrTail, lines) || lastLines(run.stdoutTail, lines);
  return `${how}${tail ? `\n${tail}` : ''}`;
}

/** The median of some numbers (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}
