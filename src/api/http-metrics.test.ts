/**
 * @module Tests of the HTTP metrics as Prometheus scrapes them: route templates (including the
 * `/v1` alias and errors handled at the app level) and statuses as labels, no concrete URL.
 */
import type { Server } from 'node:http';
import express, { Router, type ErrorRequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpMetrics } from './http-metrics.js';
import { createMetricsRegistry, metricsRouter } from './metrics.js';

class NotFound extends Error {}

let server: Server;
let base: string;

beforeAll(async () => {
  const registry = createMetricsRegistry();
  const app = express();
  app.use(httpMetrics(registry));
  app.use(metricsRouter(registry));
  const v1 = Router();
  v1.get('/servers', (_req, res) => {
    res.json({ items: [], next_cursor: null });
  });
  v1.get('/servers/:id', (req, res) => {
    if (req.params.id === 'srv-gone-4711') throw new NotFound(`server ${req.params.id} not found`);
    res.json({ id: req.params.id });
  });
  v1.post('/servers', (_req, res) => {
    res.status(202).json({});
  });
  app.use(['/api/v1', '/v1'], v1);
  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    res.status(error instanceof NotFound ? 404 : 500).json({ code: 'not_found' });
  };
  app.use(onError);
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** The value of the sample `name{labels}` in a Prometheus text exposition, or undefined. */
function sample(exposition: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of exposition.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

async function scrape(): Promise<{ contentType: string | null; text: string }> {
  const response = await fetch(`${base}/metrics`);
  expect(response.status).toBe(200);
  return { contentType: response.headers.get('content-type'), text: await response.text() };
}

describe('httpMetrics', () => {
  it('labels requests by route template and status, the /v1 alias as /api/v1, without concrete URLs', async () => {
    expect((await fetch(`${base}/api/v1/servers/srv-abc-123`)).status).toBe(200);
    expect((await fetch(`${base}/v1/servers/srv-def-456`)).status).toBe(200);
    expect((await fetch(`${base}/api/v1/servers/srv-gone-4711`)).status).toBe(404);
    expect((await fetch(`${base}/v1/servers`, { method: 'POST' })).status).toBe(202);
    expect((await fetch(`${base}/api/v1/servers?limit=5`)).status).toBe(200);
    expect((await fetch(`${base}/wp-admin/secret-probe-path.php`)).status).toBe(404);

    const { contentType, text } = await scrape();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const byId = { method: 'GET', route: '/api/v1/servers/:id' };
    expect(sample(text, 'http_requests_total', { ...byId, status: '200' })).toBe(2);
    expect(sample(text, 'http_requests_total', { ...byId, status: '404' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'POST', route: '/api/v1/servers', status: '202' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/api/v1/servers', status: '200' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', { ...byId, status: '200' })).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_bucket', { ...byId, status: '200', le: '+Inf' })).toBe(2);
    for (const concrete of ['srv-abc-123', 'srv-def-456', 'srv-gone-4711', 'secret-probe-path', 'limit=5', 'route="/v1']) {
      expect(text).not.toContain(concrete);
    }
  });

  it('serves the default process metrics beside them', async () => {
    const { text } = await scrape();
    expect(sample(text, 'process_cpu_user_seconds_total', {})).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_heap_size_used_bytes', {})).toBeGreaterThan(0);
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });

  it('can be installed twice on one registry (two apps, one /metrics)', async () => {
    const registry = createMetricsRegistry();
    const first = httpMetrics(registry);
    const second = httpMetrics(registry);
    expect(second).not.toBe(first);
    expect(await registry.metrics()).toContain('# TYPE http_requests_total counter');
  });
});
