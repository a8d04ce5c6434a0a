/**
 * @module A server under load as a child process of its own (so that it never shares a thread
 * with the load generator): started with node, ready once it prints `listening on http://...`,
 * its output drained (request logs must not block it) and kept as a tail for failure reports.
 */
import { spawn } from 'node:child_process';
import { benchEnv, lastLines } from './measured-process.js';
import { REPO_ROOT } from './repo-paths.js';

const TAIL_CHARS = 8192;
const LISTENING = /listening on (https?:\/\/127\.0\.0\.1:\d+)/;

export interface ListeningProcess {
  url: string;
  /** The node process's id (for /proc/<pid>/status), undefined if it could not be spawned. */
  pid: number | undefined;
  /** The last lines it wrote (stdout and stderr together). */
  tail(lines?: number): string;
  /** SIGTERM, then SIGKILL if it has not exited within a few seconds. */
  stop(): Promise<void>;
}

export interface ListeningOptions {
  /** Added to the child's environment (see benchEnv). */
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Runs `node ...args` and waits for its address. */
export async function startListening(args: readonly string[], options: ListeningOptions = {}): Promise<ListeningProcess> {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: benchEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let output = '';
  const keep = (chunk: Buffer): void => {
    output += chunk.toString();
    if (output.length > TAIL_CHARS) output = output.slice(-TAIL_CHARS);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(`did not print its address within ${options.timeoutMs ?? 30_000} ms`), options.timeoutMs ?? 30_000);
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.stdout.removeListener('data', look);
      reject(new Error(`node ${args.join(' ')} ${why}:\n${lastLines(output, 12)}`));
    };
    const look = (): void => {
      const match = LISTENING.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        child.stdout.removeListener('data', look);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', look);
    child.once('error', (error) => fail(`could not start: ${error.message}`));
    child.once('exit', (code, signal) => fail(`exited (${signal ?? `exit ${String(code)}`}) before listening`));
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url, pid: child.pid, tail: (lines = 12) => lastLines(output, lines), stop };
}
