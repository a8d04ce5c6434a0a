/**
 * @module One process of an app release, in its own process group, its stdout and stderr
 * written line by line to the app's log. Once supervised, a process that exits on its own is
 * started again with exponential backoff (0.5 s doubling to 30 s; back to 0.5 s after it has
 * run 30 s). `stop` ends it for good: SIGTERM to the group, SIGKILL after a grace period.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { AppLog } from './app-log.js';
import type { OsUser } from './run-program.js';

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;
const STABLE_AFTER_MS = 30_000;
const STOP_GRACE_MS = 5_000;

export interface ProcessSpec {
  /** Program and arguments (run directly, no shell). */
  argv: [string, ...string[]];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The OS user it runs as (cairn's own when undefined). */
  runAs?: OsUser;
}

export class SupervisedProcess {
  private child: ChildProcess | undefined;
  private stopped = false;
  private restarts = 0;
  private startedAt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private exit: string | null = null;
  /** Restart it when it exits on its own (off while its release is still being checked). */
  supervise = false;

  constructor(private readonly spec: ProcessSpec, private readonly log: AppLog, private readonly label: string) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the last run ended ("exited with code 1"), or null while it runs. */
  get exited(): string | null {
    return this.exit;
  }

  start(): void {
    this.stopped = false;
    this.exit = null;
    this.startedAt = Date.now();
    const [file, ...args] = this.spec.argv;
    const { runAs } = this.spec;
    const child = spawn(file, args, {
      cwd: this.spec.cwd, env: this.spec.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    });
    this.child = child;
    createInterface({ input: child.stdout }).on('line', (line) => this.log.write('stdout', line));
    createInterface({ input: child.stderr }).on('line', (line) => this.log.write('stderr', line));
    child.on('error', (error) => {
      this.exit = `could not start (${error.message})`;
      this.log.write('system', `${this.label}: could not start: ${error.message}`);
    });
    child.on('exit', (code, signal) => {
      this.exit = signal ? `was killed by ${signal}` : `exited with code ${code ?? 0}`;
      if (this.stopped) return;
      this.log.write('system', `${this.label} ${this.exit}`);
      if (this.supervise) this.scheduleRestart();
    });
    this.log.write('system', `${this.label} started (pid ${child.pid ?? 'none'})`);
  }

  private scheduleRestart(): void {
    if (Date.now() - this.startedAt >= STABLE_AFTER_MS) this.restarts = 0;
    const delay = Math.min(FIRST_DELAY_MS * 2 ** this.restarts, MAX_DELAY_MS);
    this.restarts += 1;
    this.log.write('system', `${this.label}: restarting in ${delay} ms (restart ${this.restarts})`);
    this.restartTimer = setTimeout(() => {
      if (!this.stopped) this.start();
    }, delay);
  }

  /** Ends it and keeps it ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const pid = child.pid;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const signal = (name: NodeJS.Signals): void => {
      try {
        process.kill(-pid, name);
      } catch {
        // already gone
      }
    };
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), STOP_GRACE_MS);
    await gone;
    clearTimeout(timer);
    signal('SIGKILL'); // anything the group left behind
    this.log.write('system', `${this.label} stopped`);
  }
}
