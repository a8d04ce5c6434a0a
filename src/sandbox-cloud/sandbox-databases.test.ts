/**
 * @module Tests of the sandbox's databases as a client sees them: hosting rules, engines and
 * ports, and passwords — given at create, set later, checked by login, never answered and never
 * in the sandbox's files.
 */
import { describe, expect, it } from 'vitest';
import { newDatabase, newServer, sandboxFilesContain, useSandboxFixture } from './sandbox-fixture.contract.js';

const { tempDir, start, api } = useSandboxFixture('cairn-sandbox-databases-');

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('sandbox cloud API: databases', () => {
  it('hosts a database once per client token and refuses to delete its server', async () => {
    const cloud = await start();
    const server = (await api(cloud, 'POST', '/v1/servers', newServer('host'))).body.server;
    const body = newDatabase(server.id, 'db-1');
    expect((await api(cloud, 'POST', '/v1/databases', { ...body, server_id: 'nope', client_token: 'x' })).body).toMatchObject({ field: 'server_id' });
    const created = await api(cloud, 'POST', '/v1/databases', body);
    expect(created.status).toBe(201);
    const db = created.body.database;
    expect(db).toMatchObject({ status: 'available', host: server.ipv4, port: 5432, storage_gb: 20, engine_version: expect.stringMatching(/^16\./), last_restored_backup_id: null });
    expect(db.connection).toEqual({ host: server.ipv4, port: 5432, user: 'shop_db', database: 'shop-db', uri: `postgresql://shop_db@${server.ipv4}:5432/shop-db` });
    expect((await api(cloud, 'POST', '/v1/databases', body)).body.database.id).toBe(db.id);
    expect((await api(cloud, 'GET', '/v1/databases?client_token=db-1')).body.databases).toHaveLength(1);
    expect((await api(cloud, 'PATCH', `/v1/databases/${db.id}`, { storage_gb: 40 })).body.database.storage_gb).toBe(40);
    expect((await api(cloud, 'PATCH', `/v1/databases/${db.id}`, { storage_gb: 10 })).body).toMatchObject({ field: 'storage_gb' });
    const conflict = await api(cloud, 'DELETE', `/v1/servers/${server.id}`);
    expect(conflict).toMatchObject({ status: 409, body: { id: 'conflict' } });
    expect((await api(cloud, 'DELETE', `/v1/databases/${db.id}`)).status).toBe(204);
    expect((await api(cloud, 'DELETE', `/v1/servers/${server.id}`)).status).toBe(204);
  });

  it('gives mongodb its port and uri, and creates it over time', async () => {
    const cloud = await start({ provisionMs: 100 });
    const server = (await api(cloud, 'POST', '/v1/servers', newServer('host'))).body.server;
    const body = newDatabase(server.id, 'm-1', { name: 'events', type: 'mongodb', version: '7.0', storage_gb: null });
    const db = (await api(cloud, 'POST', '/v1/databases', body)).body.database;
    expect(db).toMatchObject({ status: 'creating', port: 27017 });
    expect(db.connection.uri).toBe(`mongodb://events@${server.ipv4}:27017/events`);
    await sleep(150);
    expect((await api(cloud, 'GET', `/v1/databases/${db.id}`)).body.database.status).toBe('available');
    expect((await api(cloud, 'POST', '/v1/databases', { ...body, client_token: 'm-2', storage_gb: 5 })).status).toBe(422);
  });
});

describe('sandbox cloud API: database passwords', () => {
  it('requires a password of 12 to 128 characters at create, naming the field', async () => {
    const cloud = await start();
    const server = (await api(cloud, 'POST', '/v1/servers', newServer('host'))).body.server;
    for (const password of [undefined, 42, 'short', 'x'.repeat(129)]) {
      const refused = await api(cloud, 'POST', '/v1/databases', newDatabase(server.id, 'p', { password }));
      expect(refused).toMatchObject({ status: 422, body: { id: 'unprocessable_entity', field: 'password' } });
    }
    expect((await api(cloud, 'GET', '/v1/databases')).body.databases).toEqual([]);
    expect((await api(cloud, 'POST', '/v1/databases', newDatabase(server.id, 'p', { password: 'x'.repeat(128) }))).status).toBe(201);
  });

  it('lets in only the user with the password in force, and changes it on request', async () => {
    const cloud = await start();
    const server = (await api(cloud, 'POST', '/v1/servers', newServer('host'))).body.server;
    const db = (await api(cloud, 'POST', '/v1/databases', newDatabase(server.id, 'db', { password: 'first-password-1' }))).body.database;
    const login = (username: string, password: string): Promise<number> =>
      api(cloud, 'POST', `/v1/databases/${db.id}/login`, { username, password }).then((a) => a.status);
    expect(await login('shop_db', 'first-password-1')).toBe(200);
    expect(await login('shop_db', 'first-password-2')).toBe(401);
    expect(await login('postgres', 'first-password-1')).toBe(401);
    expect((await api(cloud, 'POST', '/v1/databases', newDatabase(server.id, 'db', { password: 'ignored-on-repeat' }))).status).toBe(200);
    expect(await login('shop_db', 'first-password-1')).toBe(200);

    const set = await api(cloud, 'POST', `/v1/databases/${db.id}/password`, { password: 'second-password-2' });
    expect(set.status).toBe(200);
    expect(Date.parse(set.body.database.password_set_at)).toBeGreaterThanOrEqual(Date.parse(db.password_set_at));
    expect(await login('shop_db', 'first-password-1')).toBe(401);
    expect(await login('shop_db', 'second-password-2')).toBe(200);
    expect((await api(cloud, 'POST', `/v1/databases/${db.id}/password`, { password: 'second-password-2' })).status).toBe(200);
    expect(await login('shop_db', 'second-password-2')).toBe(200);
    expect((await api(cloud, 'POST', `/v1/databases/${db.id}/password`, { password: 'short' })).body).toMatchObject({ field: 'password' });
    expect((await api(cloud, 'POST', '/v1/databases/nope/password', { password: 'long-enough-pass' })).status).toBe(404);
  });

  it('never answers a password and never writes one to its files', async () => {
    const dataDir = tempDir();
    const cloud = await start({ dataDir });
    const server = (await api(cloud, 'POST', '/v1/servers', newServer('host'))).body.server;
    const first = 'plaintext-canary-0001';
    const second = 'plaintext-canary-0002';
    const created = await api(cloud, 'POST', '/v1/databases', newDatabase(server.id, 'db', { password: first }));
    await api(cloud, 'POST', `/v1/databases/${created.body.database.id}/password`, { password: second });
    const answers = [created, await api(cloud, 'GET', `/v1/databases/${created.body.database.id}`), await api(cloud, 'GET', '/v1/databases')];
    for (const answer of answers) expect(JSON.stringify(answer.body)).not.toMatch(/canary|password"/);
    expect(sandboxFilesContain(dataDir, 'shop_db')).toBe(true);
    expect(sandboxFilesContain(dataDir, first)).toBe(false);
    expect(sandboxFilesContain(dataDir, second)).toBe(false);
    await cloud.close();
    expect(sandboxFilesContain(dataDir, first) || sandboxFilesContain(dataDir, second)).toBe(false);
  });

  it('applies its faults to the password routes: a lost response still set the password', async () => {
    const cloud = await start();
    const server = (await api(cloud, 'POST', '/v1/servers', newServer('host'))).body.server;
    const db = (await api(cloud, 'POST', '/v1/databases', newDatabase(server.id, 'db'))).body.database;
    cloud.setFaults({ errorRate: 1, faultKinds: ['lost_response'] });
    expect((await api(cloud, 'POST', `/v1/databases/${db.id}/password`, { password: 'after-lost-reply' })).status).toBe(502);
    cloud.setFaults({ faultKinds: ['unavailable'] });
    expect((await api(cloud, 'POST', `/v1/databases/${db.id}/login`, { username: 'shop_db', password: 'after-lost-reply' })).status).toBe(503);
    cloud.setFaults({ errorRate: 0 });
    expect((await api(cloud, 'POST', `/v1/databases/${db.id}/login`, { username: 'shop_db', password: 'after-lost-reply' })).status).toBe(200);
  });
});
