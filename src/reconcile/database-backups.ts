/**
 * @module Backups of a database at its vendor, one step per pass: a running backup is followed
 * until it completes (size and checksum recorded) or fails; a pending one is started with its
 * record's id as the vendor's key (so a retry never starts a second); a due scheduled backup is
 * added and started; scheduled backups beyond retention are deleted at the vendor and here.
 * The database stays usable (Ready) meanwhile, in phase `backing_up`.
 */
import type { BackupObserved, DatabaseRuntime } from '../drivers/contract.js';
import type { StoredResource } from '../model/resource.js';
import type { BackupRecord } from '../store/records.js';
import { dueSlot, nextSlot } from './backup-schedule.js';
import type { ReconcileContext } from './context.js';
import { doing, StallError } from './errors.js';
import type { StepResult } from './managed.js';
import { attempt } from './record-steps.js';
import type { StatusDraft } from './status-draft.js';

export const REASON_BACKUP_STARTED = 'BackupStarted';
export const REASON_BACKUP_COMPLETED = 'BackupCompleted';
export const REASON_BACKUP_FAILED = 'BackupFailed';
export const REASON_BACKUP_PRUNED = 'BackupPruned';

export const DEFAULT_RETENTION = 7;
const BACKING_UP = 'backing_up';

/** The database as its vendor knows it. */
export interface DatabaseAtVendor {
  runtime: DatabaseRuntime;
  externalId: string;
  /** A managed database whose vendor chooses its password (read back through `endpoint()`). */
  vendorChoosesPassword?: boolean;
}

/** Follows the oldest running backup; null when none is running. */
export async function runningBackupStep(ctx: ReconcileContext, r: StoredResource<'Database'>, db: DatabaseAtVendor, draft: StatusDraft): Promise<StepResult | null> {
  const backup = ctx.store.backups.open(r.uid).find((b) => b.status === 'running');
  if (!backup) return null;
  const observed = await doing(`observe backup ${backup.id}`, () => db.runtime.observeBackup({ key: backup.id, externalId: backup.externalId }));
  return followBackup(ctx, r, backup, observed, draft);
}

/** Starts the oldest pending backup; null when none is pending. */
export async function pendingBackupStep(ctx: ReconcileContext, r: StoredResource<'Database'>, db: DatabaseAtVendor, draft: StatusDraft): Promise<StepResult | null> {
  const backup = ctx.store.backups.open(r.uid).find((b) => b.status === 'pending');
  return backup ? startBackup(ctx, r, db, backup, draft) : null;
}

/** Adds and starts the scheduled backup that is due, if any. */
export async function scheduledBackupStep(ctx: ReconcileContext, r: StoredResource<'Database'>, db: DatabaseAtVendor, draft: StatusDraft): Promise<StepResult | null> {
  const policy = r.spec.backup;
  if (!policy) {
    ctx.store.backups.forgetSchedule(r.uid);
    return null;
  }
  const now = ctx.now();
  const since = ctx.store.backups.scheduleSince(r.uid, policy.schedule, now.toISOString());
  let due: Date | undefined;
  try {
    due = dueSlot(policy.schedule, new Date(since), now);
  } catch (error) {
    // A schedule that does not parse takes no backups, but leaves the database usable.
    if (!(error instanceof StallError)) throw error;
    const message = `no scheduled backups: ${error.message}`;
    if (draft.condition('Ready')?.message !== message) ctx.record(r, 'Warning', error.reason, error.message);
    return { message, usable: true, requeueAfterMs: ctx.resyncMs('Database') };
  }
  if (!due) return null;
  const slot = `scheduled:${due.toISOString()}`;
  if (ctx.store.backups.findSlot(r.uid, slot)) return null;
  const backup = ctx.store.backups.forSlot(r.tenant, r.uid, 'scheduled', slot);
  return startBackup(ctx, r, db, backup, draft);
}

/** Deletes the oldest scheduled backup beyond `spec.backup.retention`, at the vendor and here. */
export async function retentionStep(ctx: ReconcileContext, r: StoredResource<'Database'>, db: DatabaseAtVendor): Promise<StepResult | null> {
  const policy = r.spec.backup;
  if (!policy) return null;
  const keep = policy.retention ?? DEFAULT_RETENTION;
  const [oldest] = ctx.store.backups.beyondRetention(r.uid, keep);
  if (!oldest) return null;
  if (oldest.externalId !== null) {
    const externalId = oldest.externalId;
    const deleted = await attempt(`delete backup ${oldest.id}`, () => db.runtime.deleteBackup(externalId));
    if (!deleted.ok) ctx.record(r, 'Warning', REASON_BACKUP_PRUNED, `the vendor refused to delete backup ${oldest.id} (${deleted.message}); forgetting it anyway`);
  }
  ctx.store.backups.remove(oldest.id);
  const message = `deleted scheduled backup ${oldest.id} of ${oldest.createdAt}: retention keeps the newest ${keep}`;
  ctx.record(r, 'Normal', REASON_BACKUP_PRUNED, message);
  return { message, usable: true, requeueAfterMs: 0 };
}

/** Milliseconds until the next scheduled backup, when the database has a schedule. */
export function untilNextScheduledBackup(ctx: ReconcileContext, r: StoredResource<'Database'>): number | undefined {
  const schedule = r.spec.backup?.schedule;
  if (schedule === undefined) return undefined;
  const now = ctx.now();
  try {
    return Math.max(0, nextSlot(schedule, now).getTime() - now.getTime());
  } catch {
    return undefined; // reported by scheduledBackupStep
  }
}

/** Starts `backup` at the vendor (its id is the key: asking again returns the first). */
export async function startBackup(
  ctx: ReconcileContext,
  r: StoredResource<'Database'>,
  db: DatabaseAtVendor,
  backup: BackupRecord,
  draft: StatusDraft,
): Promise<StepResult> {
  const started = await attempt(`start backup ${backup.id}`, () => db.runtime.createBackup(db.externalId, backup.id));
  if (!started.ok) {
    ctx.store.backups.markFailed(backup.id, started.message);
    ctx.record(r, 'Warning', REASON_BACKUP_FAILED, `${backup.kind} backup ${backup.id} failed: ${started.message}`);
    return { message: `backup ${backup.id} failed: ${started.message}`, usable: true, requeueAfterMs: 0 };
  }
  ctx.store.backups.markRunning(backup.id, started.value.id);
  ctx.record(r, 'Normal', REASON_BACKUP_STARTED, `started ${backup.kind} backup ${backup.id} (${started.value.id} at the vendor)`);
  return followBackup(ctx, r, ctx.store.backups.get(backup.id) ?? backup, started.value, draft);
}

/** Records what the vendor says of a running backup. */
function followBackup(ctx: ReconcileContext, r: StoredResource<'Database'>, backup: BackupRecord, observed: BackupObserved | null, draft: StatusDraft): StepResult {
  if (observed === null || observed.status === 'failed') {
    const why = observed === null ? 'the backup no longer exists at the vendor' : (observed.message ?? 'the vendor reports the backup failed');
    ctx.store.backups.markFailed(backup.id, why);
    ctx.record(r, 'Warning', REASON_BACKUP_FAILED, `${backup.kind} backup ${backup.id} failed: ${why}`);
    return finished(draft, `backup ${backup.id} failed: ${why}`);
  }
  if (observed.status === 'completed') {
    ctx.store.backups.markCompleted(backup.id, { sizeBytes: observed.sizeBytes, checksum: observed.checksum });
    ctx.record(r, 'Normal', REASON_BACKUP_COMPLETED, `${backup.kind} backup ${backup.id} completed: ${observed.sizeBytes ?? '?'} bytes, ${observed.checksum ?? 'no checksum'}`);
    return finished(draft, `backup ${backup.id} completed`);
  }
  draft.setPhase(BACKING_UP);
  return { message: `${backup.kind} backup ${backup.id} is ${observed.status} at the vendor`, usable: true };
}

/** A backup ended: back to available, and straight on to whatever is next. */
function finished(draft: StatusDraft, message: string): StepResult {
  if (draft.status.phase === BACKING_UP) draft.setPhase('available');
  return { message, usable: true, requeueAfterMs: 0 };
}
