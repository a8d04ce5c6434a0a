/**
 * @module Tests of the request log through a real express app: one line per request with the
 * route template and status, request ids taken or made and echoed, and no secret from headers,
 * bodies or query strings in the output.
 */
import type { Server } from 'node:http';
import express, { Router, type ErrorRequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logging/logger.js';
import { REQUEST_ID_HEADER, requestIdOf, requestLog } from './request-log.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let server: Server;
let base: string;
const chunks: string[] = [];
let ready = true;

beforeAll(async () => {
  const app = express();
  app.use(requestLog(createLogger({ destination: { write: (chunk: string) => void chunks.push(chunk) } })));
  app.use(express.json());
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready' });
  });
  const v1 = Router();
  v1.post('/auth/login', (req, res) => {
    const body = req.body as { email?: string };
    req.log.info({ email: body.email }, 'sign-in attempt');
    res.json({ access_token: 'issued-access-token-xyz', token_type: 'Bearer' });
  });
  v1.get('/servers/:id', (req, res) => {
    res.json({ id: req.params.id });
  });
  v1.get('/slow', (_req, res) => {
    setTimeout(() => {
      if (!res.destroyed) res.json({ late: true });
    }, 2_000).unref();
  });
  v1.get('/boom', () => {
    throw new Error('store exploded');
  });
  app.use(['/api/v1', '/v1'], v1);
  const onError: ErrorRequestHandler = (error: Error, req, res, _next) => {
    res.err = error;
    res.status(500).type('application/problem+json').json({ title: 'Internal Server Error', status: 500, code: 'internal', request_id: requestIdOf(req) });
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

type Line = Record<string, unknown>;

function lines(): Line[] {
  return chunks
    .join('')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);
}

/** The request's completion line (written when the response finishes, maybe just after the client has it). */
async function requestLine(id: string): Promise<Line> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const found = lines().find((l) => l.request_id === id && typeof l.status === 'number');
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no request line for ${id} in:\n${chunks.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('requestLog', () => {
  it('never writes the Authorization header, the body or the query string, but does write the request id', async () => {
    const response = await fetch(`${base}/api/v1/auth/login?token=query-secret-789`, {
      method: 'POST',
      headers: { authorization: 'Bearer secret123', cookie: 'session=cookie-secret-456', 'content-type': 'application/json', 'x-request-id': 'req-login-1' },
      body: JSON.stringify({ email: 'ops@example.com', password: 'hunter2-password' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get(REQUEST_ID_HEADER)).toBe('req-login-1');
    const line = await requestLine('req-login-1');
    expect(line).toMatchObject({ level: 'info', method: 'POST', route: '/api/v1/auth/login', path: '/api/v1/auth/login', status: 200 });
    expect(typeof line.duration_ms).toBe('number');
    // A handler's own line through req.log carries the request id too.
    expect(lines().find((l) => l.msg === 'sign-in attempt')).toMatchObject({ request_id: 'req-login-1', email: 'ops@example.com' });
    const text = chunks.join('');
    for (const secret of ['secret123', 'hunter2-password', 'cookie-secret-456', 'query-secret-789', 'issued-access-token-xyz']) {
      expect(text).not.toContain(secret);
    }
  });

  it('logs the route template and the concrete path, under /v1 as under /api/v1', async () => {
    const response = await fetch(`${base}/v1/servers/srv-42`, { headers: { 'x-request-id': 'req-get-srv' } });
    expect(response.status).toBe(200);
    expect(await requestLine('req-get-srv')).toMatchObject({ msg: 'GET /api/v1/servers/:id 200', route: '/api/v1/servers/:id', path: '/v1/servers/srv-42' });
  });

  it('generates a UUID when the client sends no id or one that is not sane', async () => {
    const none = await fetch(`${base}/api/v1/servers/srv-1`);
    expect(none.headers.get(REQUEST_ID_HEADER)).toMatch(UUID);
    for (const insane of ['has space', 'x'.repeat(129), 'evil"}{"level":"fatal', '../../etc/passwd', '<script>']) {
      const response = await fetch(`${base}/api/v1/servers/srv-1`, { headers: { 'x-request-id': insane } });
      const id = response.headers.get(REQUEST_ID_HEADER) ?? '';
      expect(id).toMatch(UUID);
      expect(await requestLine(id)).toMatchObject({ route: '/api/v1/servers/:id' });
      expect(chunks.join('')).not.toContain(insane);
    }
    const longest = 'a.b_c-D'.repeat(18).slice(0, 128);
    expect((await fetch(`${base}/api/v1/servers/srv-1`, { headers: { 'x-request-id': longest } })).headers.get(REQUEST_ID_HEADER)).toBe(longest);
  });

  it('logs a failure at error level with the error, and the error body carries the same request id', async () => {
    const response = await fetch(`${base}/api/v1/boom`);
    expect(response.status).toBe(500);
    const id = response.headers.get(REQUEST_ID_HEADER) ?? '';
    expect(((await response.json()) as { request_id: string }).request_id).toBe(id);
    const line = await requestLine(id);
    expect(line).toMatchObject({ level: 'error', route: '/api/v1/boom', status: 500, err: { message: 'store exploded' } });
  });

  it('keeps probes out of the log while they succeed, and logs them when they fail', async () => {
    const ok = await fetch(`${base}/healthz`);
    const passing = await fetch(`${base}/readyz`);
    ready = false;
    const failing = await fetch(`${base}/readyz`);
    ready = true;
    const failingLine = await requestLine(failing.headers.get(REQUEST_ID_HEADER) ?? '');
    expect(failingLine).toMatchObject({ level: 'error', route: '/readyz', status: 503 });
    const ids = new Set(lines().map((l) => l.request_id));
    expect(ids.has(ok.headers.get(REQUEST_ID_HEADER))).toBe(false);
    expect(ids.has(passing.headers.get(REQUEST_ID_HEADER))).toBe(false);
  });

  it('logs a request whose client went away before the answer, once, as aborted', async () => {
    const controller = new AbortController();
    const pending = fetch(`${base}/api/v1/slow`, { headers: { 'x-request-id': 'req-gone-1' }, signal: controller.signal }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    await pending;
    const line = await requestLine('req-gone-1');
    expect(line).toMatchObject({ level: 'warn', route: '/api/v1/slow', aborted: true });
    expect(lines().filter((l) => l.request_id === 'req-gone-1')).toHaveLength(1);
  });
});
