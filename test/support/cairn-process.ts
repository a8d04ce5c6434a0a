/**
 * @module Runs the real `cairn` executable as a child process, as a user would, and a separate
 * `cairn sandbox-cloud` process on an ephemeral loopback port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');
export const CAIRN_BIN = join(REPO_ROOT, 'bin', 'cairn.js');

export interface CairnResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
  cwd?: string;
}

/**
 * Environment for children: no colour and fast polling. They run the compiled dist/, which the
 * tests' global setup (compiled-cli-setup.ts) rebuilds first when src/ changed, so it is the
 * code under test; CAIRN_FROM_SOURCE is dropped so that a developer's shell cannot turn them
 * back to tsx.
 */
export function testEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', CAIRN_POLL_MS: '100', ...extra };
  delete env.FORCE_COLOR;
  if (extra.CAIRN_FROM_SOURCE === undefined) delete env.CAIRN_FROM_SOURCE;
  return env;
}

export function spawnCairn(args: string[], options: RunOptions = {}): ChildProcess {
  return spawn(process.execPath, [CAIRN_BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: testEnv({ ...storeEnvOf(args), ...options.env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/**
 * The store setting of a command on a data dir: none by default; the `postgres` test project
 * (postgres-store-setup.ts) sets it so that such a command keeps its state in that data dir's
 * PostgreSQL database, as the test's own in-process stores do.
 */
let storeEnvForDataDir: ((dataDir: string) => NodeJS.ProcessEnv) | undefined;

export function setStoreEnvForDataDir(choose: (dataDir: string) => NodeJS.ProcessEnv): void {
  storeEnvForDataDir = choose;
}

/** The sandbox cloud has a store of its own, always SQLite. */
function storeEnvOf(args: string[]): NodeJS.ProcessEnv {
  if (storeEnvForDataDir === undefined || args[0] === 'sandbox-cloud') return {};
  const at = args.findIndex((arg) => arg === '--data-dir' || arg.startsWith('--data-dir='));
  if (at < 0) return {};
  const dataDir = args[at] === '--data-dir' ? args[at + 1] : args[at]!.slice('--data-dir='.length);
  return dataDir === undefined ? {} : storeEnvForDataDir(dataDir);
}

export function runCairn(args: string[], options: RunOptions = {}): Promise<CairnResult> {
  const child = spawnCairn(args, options);
  return collect(child, options);
}

export function collect(child: ChildProcess, options: RunOptions = {}): Promise<CairnResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (options.input !== undefined) child.stdin?.end(options.input);
  else child.stdin?.end();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cairn did not finish within ${options.timeoutMs ?? 120_000} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, options.timeoutMs ?? 120_000);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export interface SandboxCloudProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `cairn sandbox-cloud --port 0` and waits for the line with its address. */
export async function startSandboxCloudProcess(args: string[], options: RunOptions = {}): Promise<SandboxCloudProcess> {
  const child = spawnCairn(['sandbox-cloud', '--port', '0', ...args], options);
  child.stdin?.end();
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`sandbox cloud did not start: ${seen}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`sandbox cloud exited with ${code}: ${seen}`)));
  });
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface ServeProcess {
  child: ChildProcess;
  /** http(s)://127.0.0.1:PORT */
  base: string;
  /** Everything it printed so far, stdout and stderr. */
  output: () => string;
}

/** Starts `cairn serve ARGS` and waits until it reconciles; its address comes from its first line. */
export async function startServe(args: string[], options: RunOptions = {}): Promise<ServeProcess> {
  const child = spawnCairn(['serve', ...args], options);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (!/reconciling/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const base = /listening on (https?:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1] ?? '';
  return { child, base, output: () => output };
}
