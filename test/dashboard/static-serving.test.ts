/**
 * @module The dashboard served at `/` by the API's own server: its files with a CSP that allows
 * no inline script, `index.html` for the client's page paths, and nothing of it shadowing the
 * API, health, metrics, JWKS or Kubernetes paths (their answers, 404s included, are unchanged).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApi, type InProcessApi } from './in-process-api.js';

const INDEX = '<!doctype html><title>cairn</title><script type="module" src="/assets/index-abc.js"></script>';
let dir: string;
let api: InProcessApi;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-web-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log("dashboard")');
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  api = await startInProcessApi({ pollMs: 100, heartbeatMs: 1_000 }, { dashboardDir: dir });
});

afterAll(async () => {
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
});

const get = (path: string, init: RequestInit = {}): Promise<Response> => fetch(`${api.base}${path}`, init);

describe('the dashboard at /', () => {
  it('serves index.html for / and every page path, with a CSP that allows no inline script', async () => {
    for (const path of ['/', '/servers', '/servers/6f1c1f7e-0000-4000-8000-000000000000', '/plans']) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(await response.text()).toBe(INDEX);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(response.headers.get('cache-control')).toBe('no-cache');
    }
  });

  it('serves its built files, cached for good, and the favicon', async () => {
    const script = await get('/assets/index-abc.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('javascript');
    expect(script.headers.get('cache-control')).toContain('immutable');
    expect((await get('/favicon.svg')).status).toBe(200);
    expect((await get('/assets/missing.js')).status).toBe(404);
  });

  it('leaves the API, health, metrics, JWKS and Kubernetes paths as they were', async () => {
    for (const path of ['/api/v2/servers', '/readyz/x', '/metrics/x']) {
      const unknownApi = await get(path);
      expect(unknownApi.status, path).toBe(404);
      expect(unknownApi.headers.get('content-type'), path).toContain('application/problem+json');
    }
    expect((await get('/api/v1/no-such-thing')).status).toBe(401);
    expect((await get('/v1/servers')).status).toBe(401);
    expect(await (await get('/healthz')).json()).toEqual({ status: 'ok' });
    expect((await get('/metrics')).headers.get('content-type')).toContain('text/plain');
    expect((await get('/.well-known/jwks.json')).headers.get('content-type')).toContain('json');
    const kube = await get('/apis/cairn.dev/v1');
    expect(kube.headers.get('content-type')).toContain('json');
    expect(await kube.text()).not.toBe(INDEX);
    expect((await get('/', { method: 'POST' })).status).toBe(404);
  });
});
