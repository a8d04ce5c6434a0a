/**
 * @module A real `cairn serve` for API tests: its own data dir, users added with the CLI, and
 * a small curl-like client that checks every answer against the OpenAPI document.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCairn, startServe } from './cairn-process.js';
import { validateResponse } from './openapi-document.js';

export interface ApiAnswer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (with this content type) instead of JSON. */
  raw?: { contentType: string; text: string };
  headers?: Record<string, string>;
}

export interface ApiServer {
  base: string;
  dataDir: string;
  output(): string;
  addUser(email: string, password: string, role: string, tenant?: string): Promise<void>;
  login(email: string, password: string): Promise<{ access_token: string; refresh_token: string }>;
  call<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiAnswer<T>>;
  /** Polls GET `path` until `done` holds for its body (or throws after `timeoutMs`). */
  until<T = any>(path: string, token: string, done: (body: T) => boolean, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

/** Problems found by validating answers against the OpenAPI document, for a test to assert on. */
export const contractProblems: string[] = [];

export interface ApiServerOptions {
  /** Serve this data dir (e.g. again after a restart); it is left in place on stop. */
  dataDir?: string;
}

export async function startApiServer(env: NodeJS.ProcessEnv = {}, options: ApiServerOptions = {}): Promise<ApiServer> {
  const root = mkdtempSync(join(tmpdir(), 'cairn-api-'));
  const dataDir = options.dataDir ?? join(root, 'state');
  const { child: serve, base, output } = await startServe(['--port', '0', '--data-dir', dataDir], {
    env: { CAIRN_SANDBOX_PROVISION_MS: '100', CAIRN_LOG_LEVEL: 'info', ...env },
  });

  async function call<T>(method: string, path: string, options: RequestOptions = {}): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.raw) {
      headers['Content-Type'] = options.raw.contentType;
      body = options.raw.text;
    } else if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? '';
    const parsed = contentType.includes('json') && text !== '' ? JSON.parse(text) : text;
    const url = new URL(path, base);
    for (const problem of validateResponse({ method, path: url.pathname.replace(/^\/v1\//, '/api/v1/'), status: response.status, contentType, body: parsed })) {
      contractProblems.push(`${method} ${path} → ${response.status}: ${problem}`);
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  const server: ApiServer = {
    base,
    dataDir,
    output,
    async addUser(email, password, role, tenant) {
      const args = ['users', 'add', '--email', email, '--role', role, '--data-dir', dataDir, ...(tenant ? ['--tenant', tenant] : [])];
      const result = await runCairn(args, { input: `${password}\n` });
      if (result.code !== 0) throw new Error(`users add failed: ${result.stderr}`);
    },
    async login(email, password) {
      const answer = await call<{ access_token: string; refresh_token: string }>('POST', '/api/v1/auth/login', { body: { email, password } });
      if (answer.status !== 200) throw new Error(`login failed: ${answer.status} ${answer.text}`);
      return answer.body;
    },
    call,
    async until<T>(path: string, token: string, done: (body: T) => boolean, timeoutMs = 20_000): Promise<T> {
      const end = Date.now() + timeoutMs;
      let last: unknown;
      while (Date.now() < end) {
        const answer = await call<T>('GET', path, { token });
        last = answer.body;
        if (answer.status === 200 && done(answer.body)) return answer.body;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`timed out waiting on ${path}; last: ${JSON.stringify(last)}`);
    },
    async stop() {
      if (serve.exitCode === null) {
        serve.kill('SIGTERM');
        await new Promise((resolve) => {
          const timer = setTimeout(() => { serve.kill('SIGKILL'); resolve(undefined); }, 5_000);
          serve.once('exit', () => { clearTimeout(timer); resolve(undefined); });
        });
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
  return server;
}
