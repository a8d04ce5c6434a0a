import { request } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { guardedHttpAgent } from './guarded-agent.js';
import { outboundRefusal } from './guarded-fetch.js';
import { ALLOW_PRIVATE_SETTING } from './outbound-policy.js';

let server: Server;
let port: number;
let hits = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    hits++;
    res.end('inside');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => server.close());
afterEach(() => vi.unstubAllEnvs());

/** One GET through a fresh guarded agent: the body, or the error it failed with. */
function get(host: string): Promise<string | Error> {
  const agent = guardedHttpAgent({ keepAlive: false });
  return new Promise((done) => {
    request({ host, port, path: '/', agent }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => done(body));
    })
      .on('error', done)
      .end();
  });
}

describe('guarded agents (for vendor SDKs)', () => {
  it('refuse loopback, by address and by name, before anything reaches the listener', async () => {
    vi.stubEnv(ALLOW_PRIVATE_SETTING, '');
    for (const host of ['127.0.0.1', 'localhost']) {
      const answer = await get(host);
      expect(outboundRefusal(answer)?.message).toMatch(/does not connect to (127\.0\.0\.1|localhost)/);
    }
    expect(hits).toBe(0);
  });

  it('connect where the operator opened the range', async () => {
    vi.stubEnv(ALLOW_PRIVATE_SETTING, '127.0.0.0/8');
    expect(await get('127.0.0.1')).toBe('inside');
    expect(hits).toBe(1);
  });
});
