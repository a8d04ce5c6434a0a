/**
 * @module Tests of the sandbox cloud's faults as a client sees them: the rate limit, injected
 * errors, lost responses and dropped connections, seeded repeatability, latency and stats.
 */
import { describe, expect, it } from 'vitest';
import type { SandboxCloud } from './index.js';
import { newServer, useSandboxFixture } from './sandbox-fixture.contract.js';

const { start, api } = useSandboxFixture('cairn-sandbox-faults-');

describe('sandbox cloud API: rate limits, faults and stats', () => {
  it('answers beyond the rate limit with 429 and an integer Retry-After', async () => {
    const cloud = await start({ rateLimitPerSecond: 2 });
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push(await api(cloud, 'GET', '/v1/regions'));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429, 429]);
    expect(answers[2]?.body.id).toBe('rate_limited');
    expect(Number(answers[2]?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(cloud.stats().faults).toBe(2);
  });

  it('applies a write, then loses its response, under a lost-response fault', async () => {
    const cloud = await start({ errorRate: 1, faultKinds: ['lost_response'] });
    expect((await api(cloud, 'GET', '/v1/servers')).status).toBe(200);
    const lost = await api(cloud, 'POST', '/v1/servers', newServer('lost'));
    expect(lost).toMatchObject({ status: 502, body: { id: 'server_error' } });
    cloud.setFaults({ errorRate: 0 });
    expect((await api(cloud, 'GET', '/v1/servers')).body.servers).toHaveLength(1);
  });

  it('injects 500, 503, 429 and dropped connections as configured', async () => {
    const cloud = await start({ errorRate: 1, faultKinds: ['server_error'], hangMs: 50 });
    expect((await api(cloud, 'GET', '/v1/regions')).status).toBe(500);
    cloud.setFaults({ faultKinds: ['unavailable'] });
    expect((await api(cloud, 'GET', '/v1/regions')).body).toMatchObject({ id: 'server_error' });
    cloud.setFaults({ faultKinds: ['rate_limited'] });
    const limited = await api(cloud, 'GET', '/v1/regions');
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '1']);
    cloud.setFaults({ faultKinds: ['timeout'] });
    await expect(api(cloud, 'GET', '/v1/regions')).rejects.toThrow();
    expect(() => cloud.setFaults({ errorRate: 2 })).toThrow(/errorRate/);
    expect(cloud.stats().faults).toBe(4);
  });

  it('repeats the same faults for the same seed', async () => {
    const statuses = async (cloud: SandboxCloud): Promise<number[]> => {
      const seen: number[] = [];
      for (let i = 0; i < 20; i += 1) seen.push((await api(cloud, 'GET', '/v1/regions')).status);
      return seen;
    };
    const options = { errorRate: 0.5, seed: 42, faultKinds: ['server_error', 'unavailable'] as const };
    const first = await statuses(await start(options));
    const second = await statuses(await start(options));
    expect(first).toEqual(second);
    expect(new Set(first)).toEqual(new Set([200, 500, 503]));
  });

  it('adds latency and counts requests per route', async () => {
    const cloud = await start({ latencyMs: 80 });
    const started = Date.now();
    const id = (await api(cloud, 'POST', '/v1/servers', newServer('s'))).body.server.id;
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
    await api(cloud, 'GET', `/v1/servers/${id}`);
    await api(cloud, 'GET', `/v1/servers/${id}`);
    expect(cloud.stats()).toMatchObject({ requests: 3, faults: 0, delayed: 0, byRoute: { 'POST /v1/servers': 1, 'GET /v1/servers/:id': 2 } });
  });

  it('acts on a slow request its caller stopped waiting for, and counts the requests it holds', async () => {
    const cloud = await start({ latencyMs: 300 });
    const caller = new AbortController();
    const sent = fetch(`${cloud.url}/v1/servers`, {
      method: 'POST', signal: caller.signal,
      headers: { authorization: 'Bearer test', 'content-type': 'application/json' },
      body: JSON.stringify(newServer('abandoned-1', { name: 'abandoned' })),
    }).catch((error: unknown) => error);
    while (cloud.stats().delayed === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    caller.abort();
    expect(await sent).toBeInstanceOf(Error);
    while (cloud.stats().delayed > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const found = await api(cloud, 'GET', '/v1/servers?client_token=abandoned-1');
    expect(found.body.servers.map((s: { name: string }) => s.name)).toEqual(['abandoned']);
  });
});
