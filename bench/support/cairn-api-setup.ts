/**
 * @module Prepares a `cairn serve` for the API benchmark through public interfaces only, to
 * API.md's contract: an owner (`cairn users add`, password on stdin), a sign-in
 * (`POST /api/v1/auth/login`), a sandbox provider and N servers (`POST /api/v1/manifests`), and
 * a wait until every server is running. An answer outside the contract stops it, saying what
 * was asked and what came back.
 */
import { spawn } from 'node:child_process';
import { benchEnv, lastLines } from './measured-process.js';
import { CAIRN_BIN, REPO_ROOT } from './repo-paths.js';

const BODY_CHARS = 400;

/** Runs `cairn ...args` with `input` on stdin; rejects with its output unless it exits 0. */
export function runCairnWithInput(args: readonly string[], input: string, timeoutMs = 60_000): Promise<string> {
  const child = spawn(process.execPath, [CAIRN_BIN, ...args], { cwd: REPO_ROOT, env: benchEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`\`cairn ${args.join(' ')}\` ${signal ? `was killed by ${signal}` : `exited ${String(code)}`}:\n${lastLines(output, 8)}`));
    });
  });
}

/** `cairn users add --email EMAIL --role owner --data-dir DIR`, the password on stdin. */
export async function addOwner(dataDir: string, email: string, password: string): Promise<void> {
  await runCairnWithInput(['users', 'add', '--email', email, '--role', 'owner', '--data-dir', dataDir], `${password}\n`);
}

interface CallOptions {
  token?: string;
  body?: unknown;
}

/** One request; its JSON body if the status is one of `expected`, else an error naming both. */
async function call(base: string, method: string, path: string, expected: readonly number[], options: CallOptions = {}): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
  } catch (error) {
    throw new Error(`${method} ${path} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const text = await response.text();
  const shown = text.length > BODY_CHARS ? `${text.slice(0, BODY_CHARS)}…` : text;
  if (!expected.includes(response.status)) {
    throw new Error(`${method} ${path} answered ${response.status} (API.md: ${expected.join(' or ')})${shown ? `: ${shown}` : ''}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${method} ${path} answered ${response.status} with a body that is not JSON: ${shown}`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `POST /api/v1/auth/login {email, password}` → the access token. */
export async function signIn(base: string, email: string, password: string): Promise<string> {
  const body = await call(base, 'POST', '/api/v1/auth/login', [200], { body: { email, password } });
  if (!isRecord(body) || typeof body.access_token !== 'string' || body.access_token === '') {
    throw new Error(`POST /api/v1/auth/login answered 200 without an access_token (API.md: {access_token, refresh_token, expires_in, token_type})`);
  }
  return body.access_token;
}

/** The manifests of one sandbox provider and `count` servers (web-000 ...) in eu-1, small, debian-12. */
export function providerAndServers(count: number): unknown[] {
  const provider = { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'bench' }, spec: { vendor: 'sandbox' } };
  const servers = Array.from({ length: count }, (_, i) => ({
    apiVersion: 'cairn.dev/v1',
    kind: 'Server',
    metadata: { name: `web-${String(i).padStart(3, '0')}` },
    spec: { provider: 'bench', region: 'eu-1', size: 'small', image: 'debian-12' },
  }));
  return [provider, ...servers];
}

/** `POST /api/v1/manifests {manifests}`: any 2xx (API.md leaves the status of an apply open). */
export async function applyManifests(base: string, token: string, manifests: readonly unknown[]): Promise<void> {
  await call(base, 'POST', '/api/v1/manifests', [200, 201, 202], { token, body: { manifests } });
}

/** One page of `GET /api/v1/servers` (default limit 50): the items, checked against API.md's list shape. */
export async function listServers(base: string, token: string): Promise<Array<Record<string, unknown>>> {
  const body = await call(base, 'GET', '/api/v1/servers', [200], { token });
  if (!isRecord(body) || !Array.isArray(body.items) || !('next_cursor' in body)) {
    throw new Error(`GET /api/v1/servers answered 200 without API.md's list shape {items: [...], next_cursor}`);
  }
  return body.items.filter(isRecord);
}

/** Waits until the list shows `count` servers, all `running`; the reconcile loop is then idle while the load runs. */
export async function waitForRunningServers(base: string, token: string, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const items = await listServers(base, token);
    const statuses = new Map<string, number>();
    for (const item of items) statuses.set(String(item.status), (statuses.get(String(item.status)) ?? 0) + 1);
    if (items.length === count && statuses.get('running') === count) return;
    if (Date.now() > deadline) {
      const seen = [...statuses].map(([status, n]) => `${n} ${status}`).join(', ') || 'none';
      throw new Error(`GET /api/v1/servers: expected ${count} servers running within ${Math.round(timeoutMs / 1000)} s, saw ${items.length} (${seen})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
