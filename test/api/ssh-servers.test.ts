/**
 * @module Servers of a Provider of vendor `ssh` through the REST API: `host`, `port` and `user`
 * name an existing host (checked by the schema: a host name or IP, a port 1–65535, a POSIX user
 * name); the fields a vendor takes are checked against the provider's vendor (a 422 naming the
 * field, nothing created): host required and region/size refused for ssh, region/size required
 * and host/port/user refused for every other vendor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractProblems, startApiServer, type ApiServer } from '../support/api-server.js';

const PASSWORD = 'ssh servers password';
let api: ApiServer;
let token = '';
const ids: Record<string, string> = {};

beforeAll(async () => {
  api = await startApiServer();
  await api.addUser('owner@example.com', PASSWORD, 'owner');
  token = (await api.login('owner@example.com', PASSWORD)).access_token;
  for (const [name, vendor] of [['byo', 'ssh'], ['play', 'sandbox']] as const) {
    const created = await api.call('POST', '/api/v1/providers', { token, body: { name, vendor } });
    expect(created.status, created.text).toBe(201);
    ids[name] = created.body.id as string;
  }
}, 60_000);

afterAll(async () => {
  await api.stop();
});

async function serverNames(): Promise<string[]> {
  return ((await api.call('GET', '/api/v1/servers', { token })).body.items as Array<{ name: string }>).map((s) => s.name);
}

describe('servers of an ssh provider over REST', () => {
  it('creates a server on an existing host with host, port and user; region and size stay null', async () => {
    const created = await api.call('POST', '/api/v1/servers', { token, body: { name: 'byo-1', provider_id: ids['byo'], host: '203.0.113.10', port: 2222, user: 'deploy' } });
    expect(created.status, created.text).toBe(202);
    expect(created.body).toMatchObject({ name: 'byo-1', host: '203.0.113.10', port: 2222, user: 'deploy', region: null, size: null });
    const defaults = await api.call('POST', '/api/v1/servers', { token, body: { name: 'byo-2', provider_id: ids['byo'], host: 'db1.example.com' } });
    expect(defaults.status, defaults.text).toBe(202);
    expect(defaults.body).toMatchObject({ host: 'db1.example.com', port: 22, user: 'root' });
  });

  it.each([
    ['no host', {}, '/host', 'required: Provider/byo is of vendor ssh'],
    ['a region', { host: '203.0.113.10', region: 'eu-1' }, '/region', 'existing hosts with no region'],
    ['a size', { host: '203.0.113.10', size: 'small' }, '/size', 'existing hosts with no size'],
    ['a host that is no host name', { host: 'bad host;rm -rf /' }, '/host', 'must match the pattern'],
    ['port 0', { host: '203.0.113.10', port: 0 }, '/port', '>= 1'],
    ['port 65536', { host: '203.0.113.10', port: 65536 }, '/port', '<= 65535'],
    ['a user that is no POSIX user name', { host: '203.0.113.10', user: 'Root Admin' }, '/user', 'must match the pattern'],
  ])('refuses %s with a 422 naming the field, creating nothing', async (_what, fields, pointer, message) => {
    const refused = await api.call('POST', '/api/v1/servers', { token, body: { name: 'refused', provider_id: ids['byo'], ...fields } });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.errors).toEqual([expect.objectContaining({ pointer, message: expect.stringContaining(message) })]);
    expect(await serverNames()).not.toContain('refused');
  });

  it('refuses a size change of such a server, and the host cannot change in place', async () => {
    const id = (await api.call('POST', '/api/v1/servers', { token, body: { name: 'byo-3', provider_id: ids['byo'], host: '203.0.113.11' } })).body.id as string;
    const sized = await api.call('PUT', `/api/v1/servers/${id}`, { token, body: { size: 'small' } });
    expect(sized.status, sized.text).toBe(422);
    expect(sized.body.errors).toEqual([expect.objectContaining({ pointer: '/size' })]);
    const moved = await api.call('PUT', `/api/v1/servers/${id}`, { token, body: { host: '203.0.113.12' } });
    expect(moved.status).toBe(422);
    expect((await api.call('GET', `/api/v1/servers/${id}`, { token })).body).toMatchObject({ host: '203.0.113.11', size: null });
  });
});

describe('servers of any other vendor', () => {
  it('still need region and size, named in one 422', async () => {
    const refused = await api.call('POST', '/api/v1/servers', { token, body: { name: 'cloud-1', provider_id: ids['play'] } });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({ pointer: '/region', message: expect.stringContaining('required: Provider/play is of vendor sandbox') }),
      expect.objectContaining({ pointer: '/size' }),
    ]);
  });

  it.each([['host', '203.0.113.10'], ['port', 22], ['user', 'root']])('refuses %s, which only a server of an ssh provider takes', async (field, value) => {
    const refused = await api.call('POST', '/api/v1/servers', { token, body: { name: 'cloud-2', provider_id: ids['play'], region: 'eu-1', size: 'small', [field]: value } });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: `/${field}`, message: expect.stringContaining('only a server of a Provider of vendor ssh') })]);
    expect(await serverNames()).not.toContain('cloud-2');
  });

  it('answers every call as the OpenAPI document says', () => {
    expect(contractProblems).toEqual([]);
  });
});
