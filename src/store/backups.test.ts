/** @module Tests of the backup records: requests wake the database, pages newest first, slots never double, retention. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../model/errors.js';
import { openRecordsFixture, type RecordsFixture } from './records-fixture.js';
import { Store } from './store.js';

let f: RecordsFixture;
beforeEach(() => (f = openRecordsFixture()));
afterEach(() => f.close());

function completeScheduled(slot: string): string {
  const backup = f.store.backups.forSlot('default', f.databaseUid, 'scheduled', slot);
  f.store.backups.markRunning(backup.id, `vendor-${slot}`);
  f.store.backups.markCompleted(backup.id, { sizeBytes: 10, checksum: 'sha256:00' });
  return backup.id;
}

describe('Backups', () => {
  it('records a manual backup as pending and wakes the database, seen by another process on the same data dir', () => {
    const other = Store.open(f.dir);
    try {
      const mark = other.resources.revision();
      const backup = f.store.backups.request('default', f.databaseUid, 'manual');
      expect(backup).toMatchObject({ databaseUid: f.databaseUid, kind: 'manual', status: 'pending', sizeBytes: null, checksum: null, completedAt: null });
      const signal = other.resources.signalsSince(mark).find((s) => s.uid === f.databaseUid);
      expect(signal?.wakes).toBe(1);
      expect(other.backups.get(backup.id)?.status).toBe('pending');
    } finally {
      other.close();
    }
  });

  it('refuses a backup of a database that does not exist, or of another tenant, and records nothing', () => {
    expect(() => f.store.backups.request('default', 'no-such-uid', 'manual')).toThrow(NotFoundError);
    expect(() => f.store.backups.request('other-tenant', f.databaseUid, 'manual')).toThrow(NotFoundError);
    expect(() => f.store.backups.request('default', f.appUid, 'manual')).toThrow(NotFoundError);
    expect(f.store.backups.page(f.databaseUid, { limit: 10 }).items).toEqual([]);
  });

  it('pages newest first with a cursor that continues where the last page ended', () => {
    const ids = Array.from({ length: 5 }, () => f.store.backups.request('default', f.databaseUid, 'manual').id);
    const first = f.store.backups.page(f.databaseUid, { limit: 2 });
    expect(first.items.map((b) => b.id)).toEqual([ids[4], ids[3]]);
    const second = f.store.backups.page(f.databaseUid, { limit: 2, cursor: first.nextCursor ?? '' });
    expect(second.items.map((b) => b.id)).toEqual([ids[2], ids[1]]);
    const last = f.store.backups.page(f.databaseUid, { limit: 2, cursor: second.nextCursor ?? '' });
    expect(last.items.map((b) => b.id)).toEqual([ids[0]]);
    expect(last.nextCursor).toBeNull();
    expect(() => f.store.backups.page(f.databaseUid, { limit: 2, cursor: 'garbage' })).toThrow(ValidationError);
  });

  it('keeps one backup per scheduled slot however often it is asked for', () => {
    const a = f.store.backups.forSlot('default', f.databaseUid, 'scheduled', '2030-01-01T03:00:00.000Z');
    const b = f.store.backups.forSlot('default', f.databaseUid, 'scheduled', '2030-01-01T03:00:00.000Z');
    expect(b.id).toBe(a.id);
    expect(f.store.backups.page(f.databaseUid, { limit: 10 }).items).toHaveLength(1);
  });

  it('moves a backup pending → running → completed, and a finished one stays finished', () => {
    const backup = f.store.backups.request('default', f.databaseUid, 'manual');
    f.store.backups.markRunning(backup.id, 'bk-1');
    expect(f.store.backups.open(f.databaseUid).map((b) => [b.id, b.status, b.externalId])).toEqual([[backup.id, 'running', 'bk-1']]);
    f.store.backups.markCompleted(backup.id, { sizeBytes: 4096, checksum: 'sha256:abc' });
    f.store.backups.markFailed(backup.id, 'too late');
    const done = f.store.backups.get(backup.id);
    expect(done).toMatchObject({ status: 'completed', sizeBytes: 4096, checksum: 'sha256:abc', message: null });
    expect(done?.completedAt).not.toBeNull();
    expect(f.store.backups.open(f.databaseUid)).toEqual([]);
  });

  it('lets go of scheduled backups beyond retention, oldest first, never counting failed ones or manual ones', () => {
    const oldest = completeScheduled('2030-01-01T03:00:00.000Z');
    const failed = f.store.backups.forSlot('default', f.databaseUid, 'scheduled', '2030-01-02T03:00:00.000Z');
    f.store.backups.markFailed(failed.id, 'disk full');
    const middle = completeScheduled('2030-01-03T03:00:00.000Z');
    f.store.backups.request('default', f.databaseUid, 'manual');
    completeScheduled('2030-01-04T03:00:00.000Z');
    completeScheduled('2030-01-05T03:00:00.000Z');
    expect(f.store.backups.beyondRetention(f.databaseUid, 2).map((b) => b.id)).toEqual([oldest, failed.id, middle]);
    expect(f.store.backups.beyondRetention(f.databaseUid, 4).map((b) => b.id)).toEqual([]);
    f.store.backups.remove(oldest);
    expect(f.store.backups.get(oldest)).toBeUndefined();
  });

  it('starts a schedule when it is first seen, and again when it changes', () => {
    expect(f.store.backups.scheduleSince(f.databaseUid, '0 3 * * *', '2030-01-01T00:00:00.000Z')).toBe('2030-01-01T00:00:00.000Z');
    expect(f.store.backups.scheduleSince(f.databaseUid, '0 3 * * *', '2030-02-01T00:00:00.000Z')).toBe('2030-01-01T00:00:00.000Z');
    expect(f.store.backups.scheduleSince(f.databaseUid, '0 4 * * *', '2030-02-01T00:00:00.000Z')).toBe('2030-02-01T00:00:00.000Z');
  });
});
