/**
 * @module Database backups through the reconcile loop against the sandbox cloud: a manual backup
 * completes with the vendor's size and checksum; scheduled backups follow the cron schedule (on
 * a test clock) and retention deletes the oldest at the vendor and in cairn; deleting a database
 * takes a final backup first, unless told to skip it or the policy is Orphan.
 */
import { describe, expect, it } from 'vitest';
import type { AnyStoredResource } from '../src/model/resource.js';
import { condition, databaseManifest, isReady, providerManifest, serverManifest, useReconcileHarness } from './support/reconcile-harness.js';

let now = new Date('2030-01-01T00:00:00Z');
const harness = useReconcileHarness({ controller: { clock: () => now } });

interface VendorBackup {
  id: string;
  database_id: string;
  status: string;
  size_bytes: number | null;
  checksum: string | null;
}

async function vendorBackups(databaseExternalId: string): Promise<VendorBackup[]> {
  const { body } = await harness().vendor<{ backups: VendorBackup[] }>('GET', `/v1/backups?database_id=${databaseExternalId}`);
  return body.backups;
}

async function availableDatabase(name: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>): Promise<AnyStoredResource> {
  const h = harness();
  h.apply(providerManifest(h.cloud.url), serverManifest('s1'), databaseManifest(name, 's1', spec, annotations));
  h.controller.start();
  await h.until(`${name} available`, () => isReady(h.get('Database', name)));
  return h.get('Database', name);
}

function deleteDatabase(name: string): void {
  harness().store.resources.requestDeletion('default', 'api', [{ kind: 'Database', namespace: 'default', name }]);
}

describe('database backups', () => {
  it('takes a manual backup and records the vendor’s size and checksum', async () => {
    const h = harness();
    const db = await availableDatabase('man-db');
    const backup = h.store.backups.request('default', db.uid, 'manual');
    await h.until('completed', () => h.store.backups.get(backup.id)?.status === 'completed');
    const done = h.store.backups.get(backup.id);
    const [atVendor] = await vendorBackups(db.status.externalId ?? '');
    expect(atVendor?.id).toBe(done?.externalId);
    expect(done?.sizeBytes).toBe(atVendor?.size_bytes);
    expect(done?.sizeBytes).toBeGreaterThan(0);
    expect(done?.checksum).toBe(atVendor?.checksum);
    expect(done?.checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(done?.completedAt).not.toBeNull();
    const reasons = h.store.events.list({ tenant: 'default', uid: db.uid, limit: 200 }).map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['BackupStarted', 'BackupCompleted']));
    await h.until('available again', () => h.get('Database', 'man-db').status.phase === 'available');
  });

  it('backs up on schedule and keeps only `retention` scheduled backups, at the vendor and in cairn', async () => {
    const h = harness();
    now = new Date('2030-01-01T00:00:00Z');
    const db = await availableDatabase('sched-db', { backup: { schedule: '0 3 * * *', retention: 2 } });
    const manual = h.store.backups.request('default', db.uid, 'manual');
    await h.until('manual backup', () => h.store.backups.get(manual.id)?.status === 'completed');
    const scheduled = (): Array<{ id: string; externalId: string | null; status: string }> =>
      h.store.backups.page(db.uid, { limit: 50 }).items.filter((b) => b.kind === 'scheduled');

    const completedScheduled = (): number =>
      h.store.events.list({ tenant: 'default', uid: db.uid, limit: 200 }).filter((e) => e.reason === 'BackupCompleted' && e.message.startsWith('scheduled')).length;
    expect(scheduled()).toEqual([]); // nothing is due before the first 03:00
    for (const [day, count] of [['01', 1], ['02', 2], ['03', 3]] as const) {
      now = new Date(`2030-01-${day}T03:00:00Z`);
      await h.until(`the backup of day ${day}`, () => completedScheduled() === count);
    }
    await h.until('retention to delete the oldest', async () => scheduled().length === 2 && (await vendorBackups(db.status.externalId ?? '')).length === 3);
    const kept = scheduled();
    expect(kept).toHaveLength(2);
    const atVendor = (await vendorBackups(db.status.externalId ?? '')).map((b) => b.id).sort();
    // The manual backup is never pruned; the first scheduled one is gone from both sides.
    expect(atVendor).toEqual([h.store.backups.get(manual.id)?.externalId, ...kept.map((b) => b.externalId)].sort());
    const pruned = h.store.events.list({ tenant: 'default', uid: db.uid, limit: 200 }).filter((e) => e.reason === 'BackupPruned');
    expect(pruned).toHaveLength(1);
  });

  it('keeps a database with a schedule that does not parse usable, and says why nothing is scheduled', async () => {
    const h = harness();
    const db = await availableDatabase('badcron-db', { backup: { schedule: 'at 3 every day' } });
    await h.until('the reason on Ready', () => condition(h.get('Database', 'badcron-db'), 'Ready')?.message.includes('five fields') === true);
    expect(isReady(h.get('Database', 'badcron-db'))).toBe(true);
    const warnings = h.store.events.list({ tenant: 'default', uid: db.uid, limit: 200 }).filter((e) => e.reason === 'InvalidBackupSchedule');
    expect(warnings).toHaveLength(1);
  });

  it('takes a final backup before deleting, and the backup outlives the database', async () => {
    const h = harness();
    const db = await availableDatabase('fin-db');
    deleteDatabase('fin-db');
    await h.until('deleted', () => h.find('Database', 'fin-db') === undefined);
    const [final] = h.store.backups.page(db.uid, { limit: 10 }).items;
    expect(final).toMatchObject({ kind: 'final', status: 'completed' });
    const { body } = await h.vendor<{ databases: Array<{ id: string }> }>('GET', '/v1/databases');
    expect(body.databases.some((d) => d.id === db.status.externalId)).toBe(false);
    expect((await vendorBackups(db.status.externalId ?? '')).map((b) => b.id)).toEqual([final?.externalId]);
  });

  it('keeps a database whose final backup failed, says how to skip it, and deletes once told to', async () => {
    const h = harness();
    const db = await availableDatabase('failfin-db');
    // The final backup of this deletion failed at the vendor (the sandbox's never do, so it is recorded so).
    h.store.transaction(() => {
      deleteDatabase('failfin-db');
      const ts = h.get('Database', 'failfin-db').deletionTimestamp ?? '';
      const final = h.store.backups.forSlot('default', db.uid, 'final', `final:${ts}`);
      h.store.backups.markFailed(final.id, 'disk full at the vendor');
    });
    await h.until('the delete to stop', () => condition(h.get('Database', 'failfin-db'), 'Ready')?.reason === 'FinalBackupFailed');
    const ready = condition(h.get('Database', 'failfin-db'), 'Ready');
    expect(ready?.message).toContain('disk full at the vendor');
    expect(ready?.message).toContain('cairn.dev/skip-final-backup: "true"');
    const { body } = await h.vendor<{ databases: Array<{ id: string }> }>('GET', '/v1/databases');
    expect(body.databases.some((d) => d.id === db.status.externalId)).toBe(true);

    h.store.resources.annotate(db.uid, 'cairn.dev/skip-final-backup', 'true');
    await h.until('deleted', () => h.find('Database', 'failfin-db') === undefined);
  });

  it('deletes without a final backup when annotated to skip it', async () => {
    const h = harness();
    const db = await availableDatabase('skip-db', {}, { 'cairn.dev/skip-final-backup': 'true' });
    deleteDatabase('skip-db');
    await h.until('deleted', () => h.find('Database', 'skip-db') === undefined);
    expect(h.store.backups.page(db.uid, { limit: 10 }).items).toEqual([]);
    expect(await vendorBackups(db.status.externalId ?? '')).toEqual([]);
  });

  it('leaves an Orphan database at the vendor without a final backup, and forgets its password', async () => {
    const h = harness();
    const db = await availableDatabase('orph-db', { deletionPolicy: 'Orphan' });
    deleteDatabase('orph-db');
    await h.until('removed from cairn', () => h.find('Database', 'orph-db') === undefined);
    expect(h.store.backups.page(db.uid, { limit: 10 }).items).toEqual([]);
    const { body } = await h.vendor<{ databases: Array<{ id: string }> }>('GET', '/v1/databases');
    expect(body.databases.some((d) => d.id === db.status.externalId)).toBe(true);
    expect(h.store.secrets.get('default', 'database-password', db.uid)).toBeUndefined();
  });
});
