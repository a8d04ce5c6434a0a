/**
 * @module The API app in this process over real HTTP on loopback, with its store at hand, for
 * the dashboard's REST tests: users of two tenants signed in, the watch timing shortened.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiApp } from '../../src/api/app.js';
import { createMetricsRegistry } from '../../src/api/metrics.js';
import type { DashboardWatchTiming } from '../../src/api/watch-stream.js';
import { AuthService } from '../../src/auth/auth-service.js';
import type { Role } from '../../src/auth/roles.js';
import { createLogger } from '../../src/logging/logger.js';
import { driverPoolFor } from '../../src/reconcile/driver-pool.js';
import { Store } from '../../src/store/store.js';

export interface InProcessApi {
  base: string;
  store: Store;
  /** Adds a user and signs in: its access token and tenant id. */
  signIn(email: string, role: Role, tenantName: string): Promise<{ token: string; tenant: string }>;
  call(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  stop(): Promise<void>;
}

const PASSWORD = 'a long enough password';

export async function startInProcessApi(timing: DashboardWatchTiming, options: { dashboardDir?: string } = {}): Promise<InProcessApi> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-dashboard-'));
  const store = Store.open(dir, { env: { CAIRN_MASTER_KEY: randomBytes(32).toString('base64') } });
  const auth = await AuthService.open(store, {});
  const app = createApiApp({
    store, auth, drivers: driverPoolFor(store, dir, 1_000),
    logger: createLogger({ level: 'silent' }), metrics: createMetricsRegistry(),
    readiness: { storeWritable: () => true, reconciling: () => true }, afterWrite: () => undefined,
    dashboardWatchTiming: timing,
    ...(options.dashboardDir !== undefined ? { dashboardDir: options.dashboardDir } : {}),
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    store,
    async signIn(email, role, tenantName) {
      const added = await auth.addUser({ email, password: PASSWORD, role, tenantName });
      const pair = await auth.login(email, PASSWORD, '127.0.0.1', tenantName);
      return { token: pair.access_token, tenant: added.tenant.id };
    },
    async call(method, path, token, body) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? undefined : JSON.parse(text) as unknown };
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
