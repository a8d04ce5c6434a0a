/**
 * @module Tests of the sandbox's backups and restores as a client sees them: one backup per
 * client token, queued and run over time while the database shows `backing_up`, size and
 * checksum from what the database holds, backups outliving their database, and restores —
 * once per token, same engine type only, completed backups only — that move the data.
 */
import { describe, expect, it } from 'vitest';
import type { SandboxCloud } from './index.js';
import type { BackupBody } from './routes/backup-representation.js';
import type { DatabaseBody } from './routes/database-representation.js';
import { newDatabase, newServer, useSandboxFixture, waitFor } from './sandbox-fixture.contract.js';

const { start, api } = useSandboxFixture('cairn-sandbox-backups-');

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Transitions long enough that a loaded machine still sees each status it checks. */
const SLOW = 800;

async function hostedDatabase(cloud: SandboxCloud, token: string, extra: Record<string, unknown> = {}): Promise<DatabaseBody> {
  const found = (await api(cloud, 'GET', '/v1/servers?client_token=host')).body.servers[0];
  const server = found ?? (await api(cloud, 'POST', '/v1/servers', newServer('host'))).body.server;
  return (await api(cloud, 'POST', '/v1/databases', newDatabase(server.id, token, { name: token, ...extra }))).body.database;
}

async function backupOf(cloud: SandboxCloud, databaseId: string, token: string): Promise<BackupBody> {
  return (await api(cloud, 'POST', `/v1/databases/${databaseId}/backups`, { client_token: token })).body.backup;
}

function settled(cloud: SandboxCloud, databaseId: string): Promise<DatabaseBody> {
  const read = async (): Promise<DatabaseBody> => (await api(cloud, 'GET', `/v1/databases/${databaseId}`)).body.database;
  return waitFor(read, (d) => d.status === 'available', `database ${databaseId} to be available`);
}

function completed(cloud: SandboxCloud, backupId: string): Promise<BackupBody> {
  const read = async (): Promise<BackupBody> => (await api(cloud, 'GET', `/v1/backups/${backupId}`)).body.backup;
  return waitFor(read, (b) => b.status === 'completed', `backup ${backupId} to complete`);
}

describe('sandbox cloud API: backups', () => {
  it('takes one backup per client token, running a while with the database backing up, then completed', async () => {
    const cloud = await start({ provisionMs: SLOW });
    const db = await hostedDatabase(cloud, 'db');
    await settled(cloud, db.id);
    const first = await api(cloud, 'POST', `/v1/databases/${db.id}/backups`, { client_token: 'b-1' });
    expect(first.status).toBe(201);
    expect(first.body.backup).toMatchObject({ client_token: 'b-1', database_id: db.id, database_type: 'postgresql', status: 'running', size_bytes: null, checksum: null, completed_at: null, message: null });
    expect((await api(cloud, 'GET', `/v1/databases/${db.id}`)).body.database.status).toBe('backing_up');
    const again = await api(cloud, 'POST', `/v1/databases/${db.id}/backups`, { client_token: 'b-1' });
    expect([again.status, again.body.backup.id]).toEqual([200, first.body.backup.id]);
    const done = await completed(cloud, first.body.backup.id);
    expect(done).toMatchObject({ status: 'completed', checksum: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(done.size_bytes).toBeGreaterThan(20 * 16 * 1024 * 1024);
    expect(Date.parse(done.completed_at ?? '')).toBe(Date.parse(done.started_at ?? '') + SLOW);
    expect((await api(cloud, 'GET', `/v1/databases/${db.id}`)).body.database.status).toBe('available');
    expect((await api(cloud, 'GET', `/v1/backups?client_token=b-1`)).body.backups.map((b) => b.id)).toEqual([done.id]);
    expect((await api(cloud, 'GET', `/v1/databases/${db.id}/backups`)).body.backups).toEqual([done]);
  });

  it('queues a backup behind the creation of its database and the backups before it', async () => {
    const provisionMs = SLOW;
    const cloud = await start({ provisionMs });
    const db = await hostedDatabase(cloud, 'db');
    const first = await backupOf(cloud, db.id, 'q-1');
    const second = await backupOf(cloud, db.id, 'q-2');
    expect([first.status, second.status, first.started_at]).toEqual(['pending', 'pending', null]);
    expect((await api(cloud, 'GET', `/v1/databases/${db.id}`)).body.database.status).toBe('creating');
    const seen = new Set<string>();
    let backups: BackupBody[] = [];
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !(backups.length === 2 && backups.every((b) => b.status === 'completed'))) {
      seen.add((await api(cloud, 'GET', `/v1/databases/${db.id}`)).body.database.status);
      backups = (await api(cloud, 'GET', `/v1/databases/${db.id}/backups`)).body.backups;
      await sleep(20);
    }
    const [one, two] = backups;
    expect(Date.parse(one?.started_at ?? '')).toBe(Date.parse(db.created_at) + provisionMs);
    expect(Date.parse(one?.completed_at ?? '')).toBe(Date.parse(one?.started_at ?? '') + provisionMs);
    expect(two?.started_at).toBe(one?.completed_at);
    expect(Date.parse(two?.completed_at ?? '')).toBe(Date.parse(two?.started_at ?? '') + provisionMs);
    expect(seen).toContain('backing_up');
    expect((await api(cloud, 'GET', `/v1/databases/${db.id}`)).body.database.status).toBe('available');
  });

  it('derives size and checksum from what the database holds, reproducibly', async () => {
    const cloud = await start();
    const small = await hostedDatabase(cloud, 'small', { storage_gb: 10 });
    const large = await hostedDatabase(cloud, 'large', { storage_gb: 100 });
    const [a1, a2, b] = [await backupOf(cloud, small.id, 'a1'), await backupOf(cloud, small.id, 'a2'), await backupOf(cloud, large.id, 'b')];
    expect(a2.checksum).toBe(a1.checksum);
    expect(a2.size_bytes).toBe(a1.size_bytes);
    expect(b.checksum).not.toBe(a1.checksum);
    expect(b.size_bytes ?? 0).toBeGreaterThan((a1.size_bytes ?? 0) + 80 * 16 * 1024 * 1024);
    await api(cloud, 'PATCH', `/v1/databases/${small.id}`, { version: '17' });
    expect((await backupOf(cloud, small.id, 'a3')).checksum).not.toBe(a1.checksum);
  });

  it('keeps backups after their database is gone, until they are deleted', async () => {
    const cloud = await start();
    const db = await hostedDatabase(cloud, 'db');
    const backup = await backupOf(cloud, db.id, 'keep');
    expect((await api(cloud, 'DELETE', `/v1/databases/${db.id}`)).status).toBe(204);
    expect((await api(cloud, 'GET', `/v1/backups/${backup.id}`)).body.backup).toEqual(backup);
    expect((await api(cloud, 'GET', `/v1/backups?database_id=${db.id}`)).body.backups).toEqual([backup]);
    expect((await api(cloud, 'POST', `/v1/databases/${db.id}/backups`, { client_token: 'keep' })).status).toBe(200);
    expect((await api(cloud, 'POST', `/v1/databases/${db.id}/backups`, { client_token: 'new' })).status).toBe(404);
    expect((await api(cloud, 'GET', `/v1/databases/${db.id}/backups`)).status).toBe(404);
    expect((await api(cloud, 'DELETE', `/v1/backups/${backup.id}`)).status).toBe(204);
    expect((await api(cloud, 'DELETE', `/v1/backups/${backup.id}`)).status).toBe(404);
    expect((await api(cloud, 'GET', `/v1/backups/${backup.id}`)).body).toMatchObject({ id: 'not_found' });
    expect((await api(cloud, 'GET', '/v1/backups')).body.backups).toEqual([]);
  });

  it('refuses a client token already used for another database', async () => {
    const cloud = await start();
    const one = await hostedDatabase(cloud, 'one');
    const two = await hostedDatabase(cloud, 'two');
    await backupOf(cloud, one.id, 'shared');
    expect(await api(cloud, 'POST', `/v1/databases/${two.id}/backups`, { client_token: 'shared' })).toMatchObject({ status: 409, body: { id: 'conflict' } });
  });

  it('makes exactly one backup when a create whose response was lost is retried', async () => {
    const cloud = await start();
    const db = await hostedDatabase(cloud, 'db');
    cloud.setFaults({ errorRate: 1, faultKinds: ['lost_response'] });
    expect((await api(cloud, 'POST', `/v1/databases/${db.id}/backups`, { client_token: 'lost' })).status).toBe(502);
    cloud.setFaults({ faultKinds: ['server_error'] });
    expect((await api(cloud, 'GET', '/v1/backups?client_token=lost')).status).toBe(500);
    cloud.setFaults({ errorRate: 0 });
    const retried = await api(cloud, 'POST', `/v1/databases/${db.id}/backups`, { client_token: 'lost' });
    expect(retried.status).toBe(200);
    expect((await api(cloud, 'GET', '/v1/backups')).body.backups.map((b) => b.id)).toEqual([retried.body.backup.id]);
  });
});

describe('sandbox cloud API: restores', () => {
  it('restores a completed backup into a database once per client token, restoring then available', async () => {
    const cloud = await start({ provisionMs: SLOW });
    const source = await hostedDatabase(cloud, 'source');
    const target = await hostedDatabase(cloud, 'target');
    const sourceBackup = await completed(cloud, (await backupOf(cloud, source.id, 'from-source')).id);
    const targetBackup = await completed(cloud, (await backupOf(cloud, target.id, 'from-target')).id);
    expect(targetBackup.checksum).not.toBe(sourceBackup.checksum);
    await settled(cloud, target.id);

    const restored = await api(cloud, 'POST', `/v1/databases/${target.id}/restore`, { backup_id: sourceBackup.id, client_token: 'r-1' });
    expect(restored.status).toBe(201);
    expect(restored.body.database).toMatchObject({ id: target.id, status: 'restoring', last_restored_backup_id: sourceBackup.id });
    expect(restored.body.restore).toMatchObject({ client_token: 'r-1', database_id: target.id, backup_id: sourceBackup.id, status: 'running' });
    await settled(cloud, target.id);

    const again = await api(cloud, 'POST', `/v1/databases/${target.id}/restore`, { backup_id: sourceBackup.id, client_token: 'r-1' });
    expect(again.status).toBe(200);
    expect(again.body.database.status).toBe('available');
    expect(again.body.restore).toMatchObject({ id: restored.body.restore.id, status: 'completed' });
    expect((await api(cloud, 'GET', `/v1/databases/${target.id}/restores`)).body.restores).toHaveLength(1);

    const after = await completed(cloud, (await backupOf(cloud, target.id, 'after-restore')).id);
    expect(after.checksum).toBe(sourceBackup.checksum);
  });

  it('does not restore again for a repeated token after another restore', async () => {
    const cloud = await start();
    const db = await hostedDatabase(cloud, 'db');
    const a = await backupOf(cloud, db.id, 'a');
    const b = await backupOf(cloud, db.id, 'b');
    await api(cloud, 'POST', `/v1/databases/${db.id}/restore`, { backup_id: a.id, client_token: 'ra' });
    await api(cloud, 'POST', `/v1/databases/${db.id}/restore`, { backup_id: b.id, client_token: 'rb' });
    const repeated = await api(cloud, 'POST', `/v1/databases/${db.id}/restore`, { backup_id: a.id, client_token: 'ra' });
    expect(repeated.body.database.last_restored_backup_id).toBe(b.id);
    expect((await api(cloud, 'GET', `/v1/databases/${db.id}/restores`)).body.restores.map((r) => r.backup_id)).toEqual([a.id, b.id]);
    const mismatch = await api(cloud, 'POST', `/v1/databases/${db.id}/restore`, { backup_id: b.id, client_token: 'ra' });
    expect(mismatch).toMatchObject({ status: 409, body: { id: 'conflict' } });
  });

  it('restores a backup of another database of the same type only, and only once it completed', async () => {
    const cloud = await start({ provisionMs: SLOW });
    const pg = await hostedDatabase(cloud, 'pg');
    const mongo = await hostedDatabase(cloud, 'mongo', { type: 'mongodb', version: '7', storage_gb: null });
    const unfinished = await backupOf(cloud, pg.id, 'pg-backup');
    const early = await api(cloud, 'POST', `/v1/databases/${pg.id}/restore`, { backup_id: unfinished.id, client_token: 'early' });
    expect(early).toMatchObject({ status: 409, body: { id: 'conflict' } });
    expect(early.body.message).toMatch(/is (pending|running); only a completed backup can be restored/);
    await completed(cloud, unfinished.id);
    const wrongType = await api(cloud, 'POST', `/v1/databases/${mongo.id}/restore`, { backup_id: unfinished.id, client_token: 'wrong' });
    expect(wrongType).toMatchObject({ status: 422, body: { field: 'backup_id' } });
    expect(wrongType.body.message).toMatch(/postgresql database; it cannot be restored into mongodb/);
    expect((await api(cloud, 'POST', `/v1/databases/${pg.id}/restore`, { backup_id: 'nope', client_token: 'x' })).body).toMatchObject({ field: 'backup_id' });
    expect((await api(cloud, 'POST', `/v1/databases/${pg.id}/restore`, { client_token: 'x' })).body).toMatchObject({ field: 'backup_id' });
    expect((await api(cloud, 'POST', '/v1/databases/nope/restore', { backup_id: unfinished.id, client_token: 'x' })).status).toBe(404);
    expect((await api(cloud, 'GET', `/v1/databases/${pg.id}`)).body.database.last_restored_backup_id).toBeNull();
    expect((await api(cloud, 'GET', `/v1/databases/${mongo.id}/restores`)).body.restores).toEqual([]);
  });

  it('restores once when a restore whose response was lost is retried', async () => {
    const cloud = await start();
    const db = await hostedDatabase(cloud, 'db');
    const backup = await backupOf(cloud, db.id, 'b');
    cloud.setFaults({ errorRate: 1, faultKinds: ['lost_response'] });
    expect((await api(cloud, 'POST', `/v1/databases/${db.id}/restore`, { backup_id: backup.id, client_token: 'lost' })).status).toBe(502);
    cloud.setFaults({ errorRate: 0 });
    expect((await api(cloud, 'POST', `/v1/databases/${db.id}/restore`, { backup_id: backup.id, client_token: 'lost' })).status).toBe(200);
    expect((await api(cloud, 'GET', `/v1/databases/${db.id}/restores`)).body.restores).toHaveLength(1);
  });
});
