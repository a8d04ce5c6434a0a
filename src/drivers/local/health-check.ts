/**
 * @module Whether a new release is ready for traffic: an HTTP GET of its health path answering
 * 2xx or 3xx, or without a path a TCP connection accepted, on its own port — polled until it
 * passes, the process exits, or time runs out.
 */
import { request } from 'node:http';
import { createConnection } from 'node:net';

function httpOk(port: number, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', timeout: 2_000 }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 500) < 400);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

function tcpOk(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(2_000, () => socket.destroy());
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}

export interface HealthCheckOptions {
  port: number;
  /** HTTP path, or null for a TCP check. */
  path: string | null;
  timeoutMs: number;
  /** Set when the process exited: the check fails at once with it. */
  exited: () => string | null;
}

/** Resolves once healthy; throws why not (timed out, or the process exited). */
export async function waitHealthy(options: HealthCheckOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  const what = options.path === null ? `a TCP connection to port ${options.port}` : `GET ${options.path} on port ${options.port}`;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    const exit = options.exited();
    if (exit !== null) throw new Error(`the process ${exit} before ${what} succeeded`);
    if (options.path === null ? await tcpOk(options.port) : await httpOk(options.port, options.path)) return;
    last = 'not healthy';
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`health check failed: ${what} did not succeed within ${options.timeoutMs} ms (${last})`);
}
