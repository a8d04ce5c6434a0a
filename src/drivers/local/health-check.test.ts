/**
 * @module Tests of a release's health check: an HTTP path that answers 2xx passes and one that
 * answers 500 times out; without a path a TCP connection passes; a process that exited fails at once.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { waitHealthy } from './health-check.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

async function serve(status: number): Promise<number> {
  server = createHttpServer((req, res) => {
    res.statusCode = req.url === '/healthz' ? status : 404;
    res.end();
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

describe('health check', () => {
  it('passes when the path answers 2xx, and over TCP without a path', async () => {
    const port = await serve(200);
    await expect(waitHealthy({ port, path: '/healthz', timeoutMs: 5_000, exited: () => null })).resolves.toBeUndefined();
    await expect(waitHealthy({ port, path: null, timeoutMs: 5_000, exited: () => null })).resolves.toBeUndefined();
  });

  it('fails when the path keeps answering 500 past the timeout', async () => {
    const port = await serve(500);
    await expect(waitHealthy({ port, path: '/healthz', timeoutMs: 300, exited: () => null })).rejects.toThrow(/health check failed: GET \/healthz on port \d+ did not succeed within 300 ms/);
  });

  it('fails at once when the process exited', async () => {
    const port = await serve(500);
    await expect(waitHealthy({ port, path: '/healthz', timeoutMs: 60_000, exited: () => 'exited with code 3' })).rejects.toThrow('the process exited with code 3 before GET /healthz');
  });
});
