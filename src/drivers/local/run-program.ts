/**
 * @module Runs a program of the host to completion (initdb, pg_ctl, ...), optionally as another
 * OS user, and says what it printed when it fails. Arguments go to the program as they are,
 * never through a shell.
 */
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** Who a program runs as; undefined runs it as cairn's own user. */
export interface OsUser {
  name: string;
  uid: number;
  gid: number;
}

export interface RunOptions {
  runAs?: OsUser;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Sent to the program's stdin (then closed). */
  stdin?: Readable;
  /** Where its stdout goes; by default collected and returned. */
  stdout?: Writable;
  timeoutMs?: number;
  /** Kills it (SIGKILL) when it fires: the driver call it belongs to was abandoned (its deadline, cairn stopping). */
  signal?: AbortSignal;
  /** Runs it in a session of its own, so that what it leaves running (a daemon) gets no signal meant for cairn's terminal (Ctrl-C). */
  ownSession?: boolean;
}

export interface RunResult {
  stdout: string;
  stderr: string;
}

/** The last lines of a program's output, for error messages. */
function tail(text: string, lines = 8): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

/** The program was killed because the call it belonged to was given up. */
function abandoned(name: string, reason: unknown): Error {
  return new Error(`${name} was abandoned: ${reason instanceof Error ? reason.message : String(reason)}`, { cause: reason });
}

export function runProgram(file: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const name = file.split('/').pop() ?? file;
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(abandoned(name, options.signal.reason));
      return;
    }
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      uid: options.runAs?.uid,
      gid: options.runAs?.gid,
      stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      detached: options.ownSession ?? false,
    });
    let stdout = '';
    let stderr = '';
    let inputFailure: Error | undefined;
    if (options.stdout) child.stdout?.pipe(options.stdout);
    else child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    if (options.stdin && child.stdin) {
      child.stdin.on('error', () => undefined); // the program may exit before reading it all; its exit code says why
      options.stdin.pipe(child.stdin);
      // Input that fails (a backup that does not verify) must not reach the program as a clean end:
      // kill it before it can act on what it has read (pg_restore's transaction then rolls back).
      options.stdin.once('error', (error) => {
        inputFailure = error;
        child.kill('SIGKILL');
        child.stdin?.destroy();
      });
    }
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    const onAbort = (): void => {
      child.kill('SIGKILL');
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(new Error(`cannot run ${file}: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (options.signal?.aborted) reject(abandoned(name, options.signal.reason));
      else if (inputFailure) reject(new Error(`${file.split('/').pop() ?? file} was stopped: its input failed: ${inputFailure.message}`));
      else if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`${file.split('/').pop() ?? file} ${signal ? `was killed (${signal})` : `exited with code ${code}`}: ${tail(stderr || stdout) || 'no output'}`));
    });
  });
}
