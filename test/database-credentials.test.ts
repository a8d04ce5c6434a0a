/**
 * @module Database passwords through the reconcile loop against the sandbox cloud: generated once
 * per database and kept only encrypted, reused after an interrupted create, replaced by a
 * rotation (the old one stops working, apps get the new URL) and after a restore that asks for it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyStoredResource } from '../src/model/resource.js';
import { Controller } from '../src/reconcile/controller.js';
import { appManifest, databaseManifest, isReady, providerManifest, serverManifest, useReconcileHarness } from './support/reconcile-harness.js';

const harness = useReconcileHarness();

interface VendorDatabase {
  database: { connection: { user: string }; last_restored_backup_id: string | null };
}

function password(db: AnyStoredResource, name = db.uid): string | undefined {
  return harness().store.secrets.get(db.tenant, 'database-password', name);
}

/** What the sandbox answers when a client logs in to the database with `secret`. */
async function login(db: AnyStoredResource, secret: string): Promise<number> {
  const h = harness();
  const id = db.status.externalId ?? '';
  const { body } = await h.vendor<VendorDatabase>('GET', `/v1/databases/${id}`);
  return (await h.vendor('POST', `/v1/databases/${id}/login`, { username: body.database.connection.user, password: secret })).status;
}

async function availableDatabase(name: string): Promise<AnyStoredResource> {
  const h = harness();
  h.apply(providerManifest(h.cloud.url), serverManifest('s1'), databaseManifest(name, 's1'));
  h.controller.start();
  await h.until(`${name} available`, () => isReady(h.get('Database', name)));
  return h.get('Database', name);
}

async function actionDone(id: string): Promise<void> {
  await harness().until(`action ${id} to finish`, () => ['succeeded', 'failed'].includes(harness().store.actions.get(id)?.status ?? ''));
}

describe('database credentials', () => {
  it('generates a strong password once, logs in with it at the vendor, and keeps it only encrypted', async () => {
    const h = harness();
    const db = await availableDatabase('pw-db');
    const secret = password(db) ?? '';
    expect(secret).toMatch(/^[A-Za-z0-9_-]{24,}$/);
    expect(await login(db, secret)).toBe(200);
    expect(await login(db, `${secret}x`)).toBe(401);
    // Nothing cairn wrote to disk holds the password in the clear.
    for (const file of readdirSync(h.dataDir)) {
      expect(readFileSync(join(h.dataDir, file)).includes(secret), file).toBe(false);
    }
    const events = h.store.events.list({ tenant: 'default', uid: db.uid, limit: 200 });
    expect(events.some((e) => e.message.includes(secret))).toBe(false);
  });

  it('creates with the password already stored when a create is retried after a crash', async () => {
    const h = harness();
    h.apply(providerManifest(h.cloud.url), serverManifest('s1'), databaseManifest('retry-db', 's1'));
    const db = h.get('Database', 'retry-db');
    // The crash: the password was stored, the create never answered.
    h.store.secrets.put('default', 'database-password', db.uid, 'stored-before-the-crash-0123456789');
    h.controller.start();
    await h.until('available', () => isReady(h.get('Database', 'retry-db')));
    expect(password(db)).toBe('stored-before-the-crash-0123456789');
    expect(await login(h.get('Database', 'retry-db'), 'stored-before-the-crash-0123456789')).toBe(200);
  });

  it('gives a replaced database a new password, and the old one is forgotten', async () => {
    const h = harness();
    const db = await availableDatabase('move-db');
    const first = password(db) ?? '';
    const firstId = db.status.externalId;
    h.apply(serverManifest('s2', { region: 'us-1' }), databaseManifest('move-db', 's2'));
    await h.until('replaced', () => isReady(h.get('Database', 'move-db')) && h.get('Database', 'move-db').status.externalId !== firstId);
    const moved = h.get('Database', 'move-db');
    const second = password(moved) ?? '';
    expect(second).toMatch(/^[A-Za-z0-9_-]{24,}$/);
    expect(second).not.toBe(first);
    expect(await login(moved, second)).toBe(200);
    expect(await login(moved, first)).toBe(401);
  });

  it('rotates: only the new password works, and the app using the database rolls out a release with it', async () => {
    const h = harness();
    h.apply(providerManifest(h.cloud.url), serverManifest('s1'), databaseManifest('rot-db', 's1'), appManifest('rot-app', 's1', { databases: ['rot-db'] }));
    h.controller.start();
    await h.until('app running', () => isReady(h.get('App', 'rot-app')) && isReady(h.get('Database', 'rot-db')));
    const db = h.get('Database', 'rot-db');
    const app = h.get('App', 'rot-app');
    const before = password(db) ?? '';
    const releaseBefore = h.get('App', 'rot-app').status.details?.release as number;

    const rotation = h.store.actions.request('default', db.uid, 'rotate_credentials', {});
    await actionDone(rotation.id);
    expect(h.store.actions.get(rotation.id)).toMatchObject({ status: 'succeeded' });
    const after = password(db) ?? '';
    expect(after).not.toBe(before);
    expect(password(db, `${db.uid}:pending`)).toBeUndefined();
    expect(await login(db, before)).toBe(401);
    expect(await login(db, after)).toBe(200);
    expect(h.store.events.list({ tenant: 'default', uid: db.uid, limit: 200 }).map((e) => e.reason)).toContain('CredentialsRotated');

    await h.until('a new release of the app', () => ((h.get('App', 'rot-app').status.details?.release as number) ?? 0) > releaseBefore && isReady(h.get('App', 'rot-app')));
    const latest = h.store.deployments.latest(app.uid);
    expect(latest).toMatchObject({ trigger: 'config' });
    await h.until('the deployment to succeed', () => h.store.deployments.get(latest?.id ?? '')?.status === 'succeeded');
  });

  it('finishes a rotation interrupted after its new password was stored with that password, not another', async () => {
    const h = harness();
    const db = await availableDatabase('crash-rot');
    await h.controller.stop();
    // The crash: the rotation was running and its new password stored as pending; the vendor may not have it.
    const rotation = h.store.actions.request('default', db.uid, 'rotate_credentials', {});
    h.store.actions.markRunning(rotation.id);
    h.store.secrets.put('default', 'database-password', `${db.uid}:pending`, 'pending-before-the-crash-0123456789');
    const restarted = new Controller(h.store, { dataDir: h.dataDir, pollMs: 50, feedIntervalMs: 20 });
    restarted.start();
    try {
      await actionDone(rotation.id);
      expect(h.store.actions.get(rotation.id)?.status).toBe('succeeded');
      expect(password(db)).toBe('pending-before-the-crash-0123456789');
      expect(password(db, `${db.uid}:pending`)).toBeUndefined();
      expect(await login(db, 'pending-before-the-crash-0123456789')).toBe(200);
    } finally {
      await restarted.stop();
    }
  });

  it('restores a completed backup into the database and, when asked to, succeeds only with the new password in force', async () => {
    const h = harness();
    const db = await availableDatabase('rs-db');
    const backup = h.store.backups.request('default', db.uid, 'manual');
    await h.until('backup completed', () => h.store.backups.get(backup.id)?.status === 'completed');
    const before = password(db) ?? '';

    const restore = h.store.actions.request('default', db.uid, 'restore', { backupId: backup.id, rotateCredentials: true });
    await actionDone(restore.id);
    expect(h.store.actions.get(restore.id)).toMatchObject({ status: 'succeeded' });
    const vendorBackupId = h.store.backups.get(backup.id)?.externalId;
    const { body } = await h.vendor<{ restores: Array<{ backup_id: string; status: string }> }>('GET', `/v1/databases/${db.status.externalId ?? ''}/restores`);
    expect(body.restores.map((r) => r.backup_id)).toEqual([vendorBackupId]);

    expect(password(db)).not.toBe(before);
    await h.until('the database available again', () => isReady(h.get('Database', 'rs-db')) && h.store.actions.open(db.uid).length === 0);
    expect(await login(db, before)).toBe(401);
    expect(await login(db, password(db) ?? '')).toBe(200);
    const reasons = h.store.events.list({ tenant: 'default', uid: db.uid, limit: 200 }).map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['Restoring', 'Restored', 'CredentialsRotated']));
    expect(h.get('Database', 'rs-db').status.phase).toBe('available');
  });

  it('fails a restore of a backup that is not this database’s, and leaves the database as it was', async () => {
    const h = harness();
    const db = await availableDatabase('bad-rs');
    const restore = h.store.actions.request('default', db.uid, 'restore', { backupId: 'no-such-backup', rotateCredentials: false });
    await actionDone(restore.id);
    expect(h.store.actions.get(restore.id)).toMatchObject({ status: 'failed', message: expect.stringContaining('not a backup of Database/bad-rs') });
    const { body } = await h.vendor<{ restores: unknown[] }>('GET', `/v1/databases/${db.status.externalId ?? ''}/restores`);
    expect(body.restores).toEqual([]);
    expect(isReady(h.get('Database', 'bad-rs'))).toBe(true);
  });
});
