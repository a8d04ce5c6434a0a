/** @module Tests of /readyz's shape: the checks as before, and the shards a sharded replica holds. */
import type { Server } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { healthRouter, type ReadinessProbe } from './health.js';

let server: Server | undefined;
afterEach(() => server?.close());

async function readyz(probe: ReadinessProbe): Promise<{ status: number; body: unknown }> {
  const app = express();
  app.use(healthRouter(probe));
  const listening = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  server = listening;
  const address = listening.address();
  const response = await fetch(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/readyz`);
  return { status: response.status, body: await response.json() };
}

describe('/readyz', () => {
  it('has no shards field when reconciling is not sharded', async () => {
    expect(await readyz({ storeWritable: () => true, reconciling: () => false })).toEqual({
      status: 503,
      body: { status: 'not ready', checks: { store: true, reconciler: false } },
    });
  });

  it('lists the shards a sharded replica holds', async () => {
    expect(await readyz({ storeWritable: () => true, reconciling: () => true, shards: () => [2, 5, 31] })).toEqual({
      status: 200,
      body: { status: 'ready', checks: { store: true, reconciler: true }, shards: [2, 5, 31] },
    });
  });
});
