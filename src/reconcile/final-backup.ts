/**
 * @module The final backup before a database is deleted at its vendor (kind `final`, one per
 * deletion request): taken unless `deletionPolicy: Orphan` or the annotation
 * `cairn.dev/skip-final-backup: "true"`; the delete waits for it; a failed one stops the delete
 * until the user decides to skip it.
 */
import type { StoredResource } from '../model/resource.js';
import type { ReconcileContext } from './context.js';
import { runningBackupStep, startBackup, type DatabaseAtVendor } from './database-backups.js';
import { StallError } from './errors.js';
import type { StepResult } from './managed.js';
import type { StatusDraft } from './status-draft.js';

export const SKIP_FINAL_BACKUP_ANNOTATION = 'cairn.dev/skip-final-backup';
export const REASON_FINAL_BACKUP_FAILED = 'FinalBackupFailed';

/** Null once the database may be deleted at the vendor; otherwise what it waits for. */
export async function finalBackupStep(ctx: ReconcileContext, r: StoredResource<'Database'>, db: DatabaseAtVendor, draft: StatusDraft): Promise<StepResult | null> {
  // A backup already running finishes first: deleting under it would lose it.
  const running = await runningBackupStep(ctx, r, db, draft);
  if (running !== null) return { ...running, message: `before deleting: ${running.message}` };
  if (r.annotations[SKIP_FINAL_BACKUP_ANNOTATION] === 'true') return null;
  const meaningless = db.runtime.finalBackupUnavailable;
  if (meaningless !== undefined) {
    throw new StallError(REASON_FINAL_BACKUP_FAILED, `no final backup can be kept (${meaningless}), so the database is kept; to delete it without one, set the annotation ${SKIP_FINAL_BACKUP_ANNOTATION}: "true" (DELETE ?skip_final_backup=true)`);
  }
  const slot = `final:${r.deletionTimestamp ?? ''}`;
  const backup = ctx.store.backups.forSlot(r.tenant, r.uid, 'final', slot);
  switch (backup.status) {
    case 'completed':
      return null;
    case 'failed':
      throw new StallError(
        REASON_FINAL_BACKUP_FAILED,
        `the final backup ${backup.id} failed (${backup.message ?? 'no reason given'}), so the database is kept; ` +
          `to delete it without one, set the annotation ${SKIP_FINAL_BACKUP_ANNOTATION}: "true" (DELETE ?skip_final_backup=true)`,
      );
    case 'pending': {
      const started = await startBackup(ctx, r, db, backup, draft);
      return { ...started, message: `taking a final backup (${backup.id}) before deleting: ${started.message}` };
    }
    case 'running':
      return { message: `waiting for the final backup ${backup.id} before deleting` };
  }
}
