/**
 * @module Test fixture for the Kubernetes endpoint in-process: a fresh data dir, the whole API
 * app on an ephemeral loopback port with fast watch polling, an owner's access token, and a
 * fetch helper that speaks JSON (or reads a watch stream line by line).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiApp } from '../app.js';
import { createMetricsRegistry } from '../metrics.js';
import { AuthService } from '../../auth/auth-service.js';
import { createLogger } from '../../logging/logger.js';
import { driverPoolFor } from '../../reconcile/driver-pool.js';
import { Store } from '../../store/store.js';

export const PASSWORD = 'correct horse battery staple';

export interface KubeAnswer {
  status: number;
  contentType: string;
  body: Record<string, unknown>;
}

export interface KubeFixture {
  base: string;
  store: Store;
  auth: AuthService;
  token: string;
  /** A token of a user in another tenant. */
  login(email: string, role: 'owner' | 'viewer', tenantName?: string): Promise<string>;
  call(method: string, path: string, options?: { body?: unknown; contentType?: string; accept?: string; token?: string | null }): Promise<KubeAnswer>;
  close(): Promise<void>;
}

export async function openKubeFixture(options: { tombstonesKept?: number; env?: NodeJS.ProcessEnv } = {}): Promise<KubeFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-kube-'));
  const store = Store.open(dir, { env: { CAIRN_MASTER_KEY: randomBytes(32).toString('base64'), ...options.env }, ...(options.tombstonesKept !== undefined ? { tombstonesKept: options.tombstonesKept } : {}) });
  const auth = await AuthService.open(store, {});
  const drivers = driverPoolFor(store, dir, 1_000);
  const app = createApiApp({
    store, auth, drivers, logger: createLogger({ level: 'silent' }), metrics: createMetricsRegistry(),
    readiness: { storeWritable: () => true, reconciling: () => true }, afterWrite: () => undefined,
    watchTiming: { pollMs: 20, bookmarkMs: 100 },
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const login = async (email: string, role: 'owner' | 'viewer', tenantName?: string): Promise<string> => {
    await auth.addUser({ email, password: PASSWORD, role, ...(tenantName ? { tenantName } : {}) });
    return (await auth.login(email, PASSWORD, '127.0.0.1', tenantName)).access_token;
  };
  const token = await login('owner@example.com', 'owner');
  return {
    base, store, auth, token, login,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { Accept: opts.accept ?? 'application/json' };
      const auth = opts.token === undefined ? token : opts.token;
      if (auth !== null) headers.Authorization = `Bearer ${auth}`;
      let body: string | undefined;
      if (opts.body !== undefined) {
        headers['Content-Type'] = opts.contentType ?? 'application/json';
        body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      }
      const response = await fetch(base + path, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await response.text();
      return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await drivers.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Reads a watch stream's events until `done` says enough (or `maxEvents` came), then stops it. */
export async function readWatch(url: string, token: string, done: (events: Array<{ type: string; object: Record<string, unknown> }>) => boolean, options: { accept?: string; maxEvents?: number } = {}): Promise<Array<{ type: string; object: Record<string, unknown> }>> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}`, Accept: options.accept ?? 'application/json' }, signal: controller.signal });
  const reader: ReadableStreamDefaultReader<Uint8Array> | undefined = response.body?.getReader();
  if (!reader) throw new Error('no body');
  const events: Array<{ type: string; object: Record<string, unknown> }> = [];
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    while (!done(events) && events.length < (options.maxEvents ?? 1000)) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      buffered += decoder.decode(value, { stream: true });
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        events.push(JSON.parse(buffered.slice(0, newline)) as { type: string; object: Record<string, unknown> });
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
      }
    }
  } finally {
    controller.abort();
  }
  return events;
}
