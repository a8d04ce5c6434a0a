/**
 * @module Tests of the sandbox cloud's HTTP API as a client sees it: auth, catalog, and servers
 * (shapes and status codes, idempotent creates, transitions over time, persistence). Databases,
 * backups and apps have their own test files.
 */
import { describe, expect, it } from 'vitest';
import { startSandboxCloud } from './index.js';
import { newServer, useSandboxFixture } from './sandbox-fixture.contract.js';

const { tempDir, start, api } = useSandboxFixture('cairn-sandbox-cloud-');

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('sandbox cloud API: auth and catalog', () => {
  it('refuses requests without a bearer token with a JSON 401', async () => {
    const cloud = await start();
    const answer = await api(cloud, 'GET', '/v1/regions', undefined, null);
    expect(answer.status).toBe(401);
    expect(answer.body.id).toBe('unauthorized');
    expect((await api(cloud, 'GET', '/v1/regions', undefined, 'anything')).status).toBe(200);
  });

  it('accepts only the configured token when started with one', async () => {
    const cloud = await start({ token: 's3cret' });
    expect((await api(cloud, 'GET', '/v1/account', undefined, 'wrong')).status).toBe(401);
    const ok = await api(cloud, 'GET', '/v1/account', undefined, 's3cret');
    expect(ok.status).toBe(200);
    expect(ok.body.account).toMatchObject({ status: 'active', simulated: true });
  });

  it('lists regions (one unavailable) and sizes (one only in some regions)', async () => {
    const cloud = await start();
    const regions = (await api(cloud, 'GET', '/v1/regions')).body.regions;
    expect(regions.filter((r) => r.available).map((r) => r.slug)).toEqual(expect.arrayContaining(['eu-1', 'us-1', 'ap-1']));
    expect(regions).toContainEqual(expect.objectContaining({ slug: 'sa-1', available: false }));
    const sizes = (await api(cloud, 'GET', '/v1/sizes')).body.sizes;
    expect(sizes.map((s) => s.slug)).toEqual(expect.arrayContaining(['small', 'medium', 'large']));
    for (const size of sizes) expect(size).toEqual({ slug: expect.any(String), vcpus: expect.any(Number), memory_mb: expect.any(Number), disk_gb: expect.any(Number), price_monthly: expect.any(Number), regions: expect.any(Array) });
    expect(sizes.find((s) => s.slug === 'xlarge')?.regions).not.toContain('ap-1');
  });

  it('answers unknown routes and broken JSON with JSON errors', async () => {
    const cloud = await start();
    const missing = await api(cloud, 'GET', '/v1/nothing-here');
    expect(missing).toMatchObject({ status: 404, body: { id: 'not_found' } });
    const response = await fetch(`${cloud.url}/v1/servers`, { method: 'POST', headers: { authorization: 'Bearer t', 'content-type': 'application/json' }, body: '{not json' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: 'bad_request' });
  });
});

describe('sandbox cloud API: servers', () => {
  it('creates a server once per client token and lists all servers unpaged', async () => {
    const cloud = await start({ provisionMs: 60_000 });
    const first = await api(cloud, 'POST', '/v1/servers', newServer('tok-1'));
    expect(first.status).toBe(201);
    expect(first.body.server).toMatchObject({ name: 'web-1', client_token: 'tok-1', region: 'eu-1', size: 'small', image: 'debian-12', status: 'provisioning' });
    expect(first.body.server.ipv4).toMatch(/^(198\.51\.100|203\.0\.113)\.\d+$/);
    expect(first.body.server.ipv6).toMatch(/^2001:db8:/);
    const again = await api(cloud, 'POST', '/v1/servers', newServer('tok-1', { name: 'other-name' }));
    expect(again.status).toBe(200);
    expect(again.body.server.id).toBe(first.body.server.id);
    await api(cloud, 'POST', '/v1/servers', newServer('tok-2'));
    expect((await api(cloud, 'GET', '/v1/servers')).body.servers).toHaveLength(2);
    const filtered = (await api(cloud, 'GET', '/v1/servers?client_token=tok-1')).body.servers;
    expect(filtered.map((s) => s.id)).toEqual([first.body.server.id]);
    expect((await api(cloud, 'GET', '/v1/servers?client_token=nope')).body.servers).toEqual([]);
    expect((await api(cloud, 'GET', '/v1/servers?client_token=tok-1&client_token=tok-2')).body).toMatchObject({ field: 'client_token' });
  });

  it('never makes a second server for concurrent duplicate creates', async () => {
    const cloud = await start();
    const answers = await Promise.all(Array.from({ length: 20 }, () => api(cloud, 'POST', '/v1/servers', newServer('dup'))));
    expect(new Set(answers.map((a) => a.body.server.id)).size).toBe(1);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect((await api(cloud, 'GET', '/v1/servers')).body.servers).toHaveLength(1);
  });

  it('rejects bad regions and sizes with a 422 naming the field', async () => {
    const cloud = await start();
    const mars = await api(cloud, 'POST', '/v1/servers', newServer('a', { region: 'mars-1' }));
    expect(mars).toMatchObject({ status: 422, body: { id: 'unprocessable_entity', field: 'region' } });
    expect(mars.body.message).toContain('mars-1');
    expect((await api(cloud, 'POST', '/v1/servers', newServer('b', { region: 'sa-1' }))).body).toMatchObject({ field: 'region' });
    expect((await api(cloud, 'POST', '/v1/servers', newServer('c', { size: 'huge' }))).body).toMatchObject({ field: 'size' });
    expect((await api(cloud, 'POST', '/v1/servers', newServer('d', { region: 'ap-1', size: 'xlarge' }))).body).toMatchObject({ field: 'size' });
    expect((await api(cloud, 'POST', '/v1/servers', { region: 'eu-1' })).body).toMatchObject({ field: 'name' });
    expect((await api(cloud, 'GET', '/v1/servers')).body.servers).toEqual([]);
  });

  it('provisions, resizes, powers off and on, and deletes', async () => {
    const cloud = await start({ provisionMs: 250 });
    const id = (await api(cloud, 'POST', '/v1/servers', newServer('life'))).body.server.id;
    expect((await api(cloud, 'GET', `/v1/servers/${id}`)).body.server.status).toBe('provisioning');
    await sleep(300);
    expect((await api(cloud, 'GET', `/v1/servers/${id}`)).body.server.status).toBe('running');
    expect((await api(cloud, 'PATCH', `/v1/servers/${id}`, { size: 'medium' })).body.server.size).toBe('medium');
    expect((await api(cloud, 'PATCH', `/v1/servers/${id}`, { size: 'nope' })).status).toBe(422);
    const action = await api(cloud, 'POST', `/v1/servers/${id}/actions`, { type: 'power_off' });
    expect(action.status).toBe(201);
    expect(action.body.action).toMatchObject({ type: 'power_off', status: 'in-progress' });
    expect((await api(cloud, 'GET', `/v1/servers/${id}`)).body.server.status).toBe('stopping');
    await sleep(300);
    expect((await api(cloud, 'GET', `/v1/servers/${id}`)).body.server.status).toBe('stopped');
    expect((await api(cloud, 'POST', `/v1/servers/${id}/actions`, { type: 'explode' })).body).toMatchObject({ field: 'type' });
    expect((await api(cloud, 'PATCH', `/v1/servers/${id}`, { status: 'running' })).body.server.status).toBe('starting');
    expect((await api(cloud, 'DELETE', `/v1/servers/${id}`)).status).toBe(204);
    expect((await api(cloud, 'DELETE', `/v1/servers/${id}`)).status).toBe(404);
    expect((await api(cloud, 'GET', `/v1/servers/${id}`)).body).toMatchObject({ id: 'not_found' });
  });

  it('serves simulated metrics for a server', async () => {
    const cloud = await start();
    const id = (await api(cloud, 'POST', '/v1/servers', newServer('m'))).body.server.id;
    const metrics = (await api(cloud, 'GET', `/v1/servers/${id}/metrics`)).body;
    expect(metrics.simulated).toBe(true);
    for (const key of ['cpu_percent', 'memory_percent', 'disk_percent'] as const) {
      expect(metrics[key]).toBeGreaterThan(0);
      expect(metrics[key]).toBeLessThanOrEqual(100);
    }
    expect(metrics.series.length).toBeGreaterThan(0);
    await api(cloud, 'POST', `/v1/servers/${id}/actions`, { type: 'power_off' });
    expect((await api(cloud, 'GET', `/v1/servers/${id}/metrics`)).body.cpu_percent).toBe(0);
  });

  it('holds the figures PUT /v1/servers/{id}/metrics sets until changed, null returning to the simulation, across a restart', async () => {
    const dataDir = tempDir();
    const first = await startSandboxCloud({ dataDir, provisionMs: 0 });
    const id = (await api(first, 'POST', '/v1/servers', newServer('held'))).body.server.id;
    const simulatedDisk = (await api(first, 'GET', `/v1/servers/${id}/metrics`)).body.disk_percent;
    const put = await api(first, 'PUT', `/v1/servers/${id}/metrics`, { cpu_percent: 95, memory_percent: 42.5 });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ cpu_percent: 95, memory_percent: 42.5, disk_percent: simulatedDisk });
    expect((await api(first, 'PUT', `/v1/servers/${id}/metrics`, { cpu_percent: 150 })).body).toMatchObject({ field: 'cpu_percent' });
    expect((await api(first, 'PUT', `/v1/servers/${id}/metrics`, { load: 1 })).body).toMatchObject({ field: 'load' });
    expect((await api(first, 'PUT', '/v1/servers/nope/metrics', { cpu_percent: 1 })).status).toBe(404);
    await first.close();
    const second = await startSandboxCloud({ dataDir, provisionMs: 0 });
    try {
      const held = (await api(second, 'GET', `/v1/servers/${id}/metrics`)).body;
      expect(held).toMatchObject({ cpu_percent: 95, memory_percent: 42.5 });
      expect(held.series.at(-1)).toMatchObject({ cpu_percent: 95 });
      await api(second, 'PUT', `/v1/servers/${id}/metrics`, { cpu_percent: null });
      const back = (await api(second, 'GET', `/v1/servers/${id}/metrics`)).body;
      expect(back.cpu_percent).toBeLessThan(95);
      expect(back.memory_percent).toBe(42.5);
    } finally {
      await second.close();
    }
  });

  it('keeps its servers across a close and a restart on the same data dir', async () => {
    const dataDir = tempDir();
    const first = await startSandboxCloud({ dataDir, provisionMs: 0 });
    const created = (await api(first, 'POST', '/v1/servers', newServer('persist'))).body.server;
    await first.close();
    const second = await start({ dataDir });
    expect((await api(second, 'GET', '/v1/servers')).body.servers).toEqual([created]);
    expect((await api(second, 'POST', '/v1/servers', newServer('persist'))).status).toBe(200);
  });
});
