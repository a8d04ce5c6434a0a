/**
 * @module The vendor kit's HTTP client against a scripted server on loopback: the auth hook
 * signs what is sent; reads are sent again after a 503, creates are not (the reconciler finds
 * them by label instead); a 429 is waited out whatever the method; errors map to cairn's kinds
 * with the vendor's own message; an aborted call ends at once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { VendorHttpClient } from './vendor-http.js';

type Scripted = { status: number; body?: unknown; headers?: Record<string, string> };
let script: Scripted[] = [];
const received: Array<{ method: string; url: string; signature: string; contentType?: string; text?: string }> = [];
/** The `x-filter` header of each request, as a vendor such as Linode reads it. */
const filters: Array<string | undefined> = [];
let server: Server;
let baseUrl = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const content = req.headers['content-type'];
      received.push({ method: req.method ?? '', url: req.url ?? '', signature: String(req.headers['x-signature']), ...(content === undefined ? {} : { contentType: content, text }) });
      filters.push(req.headers['x-filter'] as string | undefined);
      const next = script.shift() ?? { status: 200, body: { ok: true } };
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(next.body === undefined ? '' : JSON.stringify(next.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function client(): VendorHttpClient {
  return new VendorHttpClient({
    label: 'acme',
    baseUrl,
    authorize: (request) => ({ 'x-signature': `${request.method} ${request.url.pathname}${request.url.search} ${request.body?.includes('\n') ? `${request.body.length} characters` : (request.body ?? '')}` }),
    readError: (body) => {
      const error = (body as { error?: { message?: string; field?: string } } | undefined)?.error;
      return error?.message === undefined ? undefined : { message: error.message, ...(error.field ? { field: error.field } : {}) };
    },
    requestTimeoutMs: 2_000,
    backoffMs: 5,
    trusted: true,
  });
}

describe('VendorHttpClient', () => {
  it('signs each request through the auth hook and sends the query', async () => {
    received.length = 0;
    script = [{ status: 200, body: { servers: [] } }];
    const answer = await client().call({ method: 'POST', path: '/servers', query: { page: 2, skip: undefined }, body: { name: 'a' }, doing: 'create' });
    expect(answer.body).toEqual({ servers: [] });
    expect(received).toEqual([{ method: 'POST', url: '/v1/servers?page=2', signature: 'POST /v1/servers?page=2 {"name":"a"}', contentType: 'application/json', text: '{"name":"a"}' }]);
  });

  it('sends a text body as it is, with its own content type, when the vendor takes one (user data)', async () => {
    received.length = 0;
    script = [{ status: 204 }];
    const text = '#cloud-config\nruncmd: ["echo \\"hi\\""]\n';
    const answer = await client().call({ method: 'PATCH', path: '/servers/1/user_data/cloud-init', text: { contentType: 'text/plain', body: text }, doing: 'set user data' });
    expect(answer.status).toBe(204);
    expect(received).toEqual([{ method: 'PATCH', url: '/v1/servers/1/user_data/cloud-init', signature: `PATCH /v1/servers/1/user_data/cloud-init ${text.length} characters`, contentType: 'text/plain', text }]);
  });

  it('sends a request’s own headers, under the auth hook’s', async () => {
    filters.length = 0;
    received.length = 0;
    script = [{ status: 200, body: { data: [] } }, { status: 200, body: { data: [] } }];
    await client().call({ method: 'GET', path: '/linodes', headers: { 'x-filter': '{"tags":"a"}', 'x-signature': 'forged' }, doing: 'find' });
    await client().call({ method: 'GET', path: '/linodes', doing: 'list' });
    expect(filters).toEqual(['{"tags":"a"}', undefined]);
    expect(received[0]?.signature, 'the auth hook has the last word').toBe('GET /v1/linodes');
  });

  it('sends a read again after a 503, but never a create', async () => {
    received.length = 0;
    script = [{ status: 503, body: { error: { message: 'busy' } } }, { status: 200, body: { ok: 1 } }];
    expect((await client().call({ method: 'GET', path: '/servers', doing: 'list servers' })).body).toEqual({ ok: 1 });
    script = [{ status: 503, body: { error: { message: 'busy' } } }];
    await expect(client().call({ method: 'POST', path: '/servers', body: {}, doing: 'create server "a"' })).rejects.toThrow(
      new VendorUnavailableError('acme: create server "a": 503 busy', { status: 503 }),
    );
    expect(received.map((r) => r.method)).toEqual(['GET', 'GET', 'POST']);
  });

  it('waits out a 429 whatever the method', async () => {
    received.length = 0;
    script = [{ status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '0' } }, { status: 201, body: { id: 7 } }];
    expect((await client().call({ method: 'POST', path: '/servers', body: {}, doing: 'create' })).body).toEqual({ id: 7 });
    expect(received).toHaveLength(2);
  });

  it("maps refusals to cairn's errors with the vendor's message and field", async () => {
    script = [{ status: 401, body: { error: { message: 'bad token' } } }];
    await expect(client().call({ method: 'GET', path: '/x', doing: 'test' })).rejects.toBeInstanceOf(VendorAuthError);
    script = [{ status: 422, body: { error: { message: 'size cx99 unknown', field: 'server_type' } } }];
    await expect(client().call({ method: 'POST', path: '/x', doing: 'create' })).rejects.toMatchObject({ name: 'VendorRejectedError', field: 'server_type', message: 'acme: create: 422 size cx99 unknown' });
    script = [{ status: 404, body: { error: { message: 'no such server' } } }];
    expect((await client().call({ method: 'GET', path: '/x', doing: 'observe', accept: [404] })).status).toBe(404);
    script = [{ status: 400 }];
    await expect(client().call({ method: 'GET', path: '/x', doing: 'read' })).rejects.toBeInstanceOf(VendorRejectedError);
  });

  it('ends an aborted call at once, without sending it again', async () => {
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    await expect(client().call({ method: 'GET', path: '/x', doing: 'read', signal: controller.signal })).rejects.toThrow('shutting down');
  });
});
