/**
 * @module The OpenAPI document and the express app list the same routes: a route served but
 * not documented, or documented but not served, fails here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.js';
import { createMetricsRegistry } from '../../src/api/metrics.js';
import { isKubernetesPath } from '../../src/api/kube/kube-api.js';
import { toTemplatePath } from '../../src/api/openapi-document.js';
import { AuthService } from '../../src/auth/auth-service.js';
import { createLogger } from '../../src/logging/logger.js';
import { driverPoolFor } from '../../src/reconcile/driver-pool.js';
import { Store } from '../../src/store/store.js';
import { documentedRoutes } from '../support/openapi-document.js';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  name?: string;
}

/** `METHOD /path` of every route in a router, descending into routers mounted without a path. */
function routesOf(stack: readonly Layer[], prefix: string): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      return Object.keys(layer.route.methods).filter((m) => m !== '_all').map((m) => `${m.toUpperCase()} ${prefix}${toTemplatePath(layer.route?.path ?? '')}`);
    }
    return layer.handle?.stack && layer.name === 'router' ? routesOf(layer.handle.stack, prefix) : [];
  });
}

let dir: string;
let store: Store;
let app: Express;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-routes-'));
  store = Store.open(dir, { env: { CAIRN_MASTER_KEY: randomBytes(32).toString('base64') } });
  const auth = await AuthService.open(store, {});
  app = createApiApp({
    store, auth, drivers: driverPoolFor(store, dir, 1_000),
    logger: createLogger({ level: 'silent' }), metrics: createMetricsRegistry(),
    readiness: { storeWritable: () => true, reconciling: () => true }, afterWrite: () => undefined,
  });
});

afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('routes and the OpenAPI document', () => {
  it('document exactly the routes the app serves', () => {
    const stack = (app as unknown as { router: { stack: Layer[] } }).router.stack;
    const isV1 = (l: Layer): boolean => l.name === 'router' && routesOf(l.handle?.stack ?? [], '').some((r) => r.includes('/servers'));
    const v1Router = stack.find(isV1);
    const top = routesOf(stack.filter((l) => !isV1(l)), '');
    const v1 = routesOf(v1Router?.handle?.stack ?? [], '/api/v1');
    // The Kubernetes endpoint is described by its own OpenAPI v3 (/openapi/v3) and discovery, not by this document.
    const served = new Set([...top, ...v1].filter((r) => r !== 'HEAD /healthz' && !isKubernetesPath(r.split(' ')[1] ?? '')));
    const documented = new Set(documentedRoutes().map((r) => `${r.method.toUpperCase()} ${r.path}`));
    expect([...served].filter((r) => !documented.has(r)).sort(), 'served but not documented').toEqual([]);
    expect([...documented].filter((r) => !served.has(r)).sort(), 'documented but not served').toEqual([]);
  });
});
