/**
 * @module Actions on databases: `restore` (from one of its completed backups, keyed by the
 * action's id so it never runs twice; the database is `restoring`, then `available`; a restore
 * that asked to rotate credentials succeeds only once the new password is in force) and `rotate_credentials` (a new
 * password, set crash-safely). Apps using the database are woken to roll out the new URL.
 */
import type { StoredResource } from '../model/resource.js';
import type { ActionProgress } from '../store/actions.js';
import type { ReconcileContext } from './context.js';
import type { DatabaseAtVendor } from './database-backups.js';
import { DATABASE_PASSWORD, replacePassword, storedPassword } from './database-password.js';
import type { StepResult } from './managed.js';
import { attempt } from './record-steps.js';
import { failAction } from './state-actions.js';
import type { StatusDraft } from './status-draft.js';

export const REASON_RESTORING = 'Restoring';
export const REASON_RESTORED = 'Restored';
export const REASON_CREDENTIALS_ROTATED = 'CredentialsRotated';
export const REASON_CREDENTIALS_RESET = 'CredentialsReset';

/** Carries the oldest restore forward; null when there is none. */
export async function restoreStep(ctx: ReconcileContext, r: StoredResource<'Database'>, db: DatabaseAtVendor, draft: StatusDraft): Promise<StepResult | null> {
  const actions = openActions(ctx, r);
  const action = actions.find((a) => a.type === 'restore');
  if (!action) return null;
  const backupId = typeof action.params.backupId === 'string' ? action.params.backupId : '';
  const backup = ctx.store.backups.get(backupId);
  if (!backup || backup.databaseUid !== r.uid) return failed(ctx, r, action, `backup ${backupId || '(none)'} is not a backup of Database/${r.name}`);
  if (backup.status !== 'completed' || backup.externalId === null) return failed(ctx, r, action, `backup ${backup.id} is ${backup.status}; only a completed backup can be restored`);
  const backupExternalId = backup.externalId;
  const first = action.status === 'pending';
  ctx.store.actions.markRunning(action.id);
  // The action's id is the key: asking again after a crash, or to see how it went, never restores twice.
  const restored = await attempt(`restore backup ${backup.id}`, () => db.runtime.restore(db.externalId, backupExternalId, action.id));
  if (!restored.ok) return failed(ctx, r, action, restored.message);
  if (restored.value.status === 'restoring') {
    draft.setPhase('restoring');
    const message = `restoring backup ${backup.id} of ${backup.createdAt} (action ${action.id})`;
    if (first) ctx.record(r, 'Normal', REASON_RESTORING, message);
    return { message };
  }
  if (restored.value.status !== 'available') return failed(ctx, r, action, `the vendor reports database ${db.externalId} ${restored.value.status} after the restore`);
  if (action.params.rotateCredentials !== true) {
    ctx.store.actions.finish(action.id, 'succeeded', `restored backup ${backup.id}`);
    ctx.record(r, 'Normal', REASON_RESTORED, `restored backup ${backup.id} of ${backup.createdAt}`);
    return { message: `restored backup ${backup.id}`, usable: true, requeueAfterMs: 0 };
  }
  // The action succeeds only once the new password is in force, so a client that waits for it
  // and then reads the credentials gets the new ones.
  const rotated = await replacePassword(ctx, r, (password) => db.runtime.setPassword(db.externalId, password), () =>
    ctx.store.actions.finish(action.id, 'succeeded', `restored backup ${backup.id} and gave the database a new password`),
  );
  if (!rotated.ok) return failed(ctx, r, action, `restored backup ${backup.id}, but rotating the credentials failed: ${rotated.message}`);
  ctx.record(r, 'Normal', REASON_RESTORED, `restored backup ${backup.id} of ${backup.createdAt}`);
  ctx.record(r, 'Normal', REASON_CREDENTIALS_ROTATED, `new password set for database ${db.externalId} after the restore (action ${action.id}); apps using it get a new release`);
  wakeApps(ctx, r);
  return { message: `restored backup ${backup.id}; credentials rotated`, usable: true, requeueAfterMs: 0 };
}

/** Carries the oldest credential rotation out; null when there is none. */
export async function rotationStep(ctx: ReconcileContext, r: StoredResource<'Database'>, db: DatabaseAtVendor): Promise<StepResult | null> {
  const action = openActions(ctx, r).find((a) => a.type === 'rotate_credentials');
  if (!action) return null;
  ctx.store.actions.markRunning(action.id);
  const rotated = await replacePassword(ctx, r, (password) => db.runtime.setPassword(db.externalId, password), () =>
    ctx.store.actions.finish(action.id, 'succeeded', 'the database has a new password'),
  );
  if (!rotated.ok) return failed(ctx, r, action, rotated.message);
  ctx.record(r, 'Normal', REASON_CREDENTIALS_ROTATED, `new password set for database ${db.externalId} (action ${action.id}); apps using it get a new release`);
  wakeApps(ctx, r);
  return { message: 'credentials rotated', usable: true, requeueAfterMs: 0 };
}

/**
 * A database cairn holds no password for (made before cairn kept them, or the secret was
 * lost) gets a new one, so its credentials and the apps' URLs work again.
 */
/**
 * A managed database whose vendor chose its password (it cannot take cairn's): the one it chose
 * is kept, encrypted, as the database's password, and apps using it are woken to take it up.
 */
export async function vendorPasswordStep(ctx: ReconcileContext, r: StoredResource<'Database'>, db: DatabaseAtVendor): Promise<StepResult | null> {
  if (db.vendorChoosesPassword !== true) return null;
  const endpoint = await db.runtime.endpoint(db.externalId);
  if (endpoint.vendorPassword === undefined || endpoint.vendorPassword === storedPassword(ctx, r)) return null;
  const hadOne = storedPassword(ctx, r) !== undefined;
  ctx.store.secrets.put(r.tenant, DATABASE_PASSWORD, r.uid, endpoint.vendorPassword);
  if (hadOne) ctx.record(r, 'Normal', REASON_CREDENTIALS_RESET, `the vendor set a new password for database ${db.externalId}; cairn keeps it`);
  wakeApps(ctx, r);
  return { message: 'took the password the vendor chose', usable: true, requeueAfterMs: 0 };
}

export async function missingPasswordStep(ctx: ReconcileContext, r: StoredResource<'Database'>, db: DatabaseAtVendor): Promise<StepResult | null> {
  if (storedPassword(ctx, r) !== undefined) return null;
  const reset = await replacePassword(ctx, r, (password) => db.runtime.setPassword(db.externalId, password), () => undefined);
  if (!reset.ok) throw new Error(`set a password for database ${db.externalId} failed: ${reset.message}`);
  ctx.record(r, 'Warning', REASON_CREDENTIALS_RESET, `cairn held no password for database ${db.externalId}; set a new one`);
  wakeApps(ctx, r);
  return { message: 'set a new password', usable: true, requeueAfterMs: 0 };
}

/** Open actions; those databases do not take fail at once. */
function openActions(ctx: ReconcileContext, r: StoredResource<'Database'>): ActionProgress[] {
  return ctx.store.actions.open(r.uid).filter((action) => {
    if (action.type === 'restore' || action.type === 'rotate_credentials') return true;
    failed(ctx, r, action, `${action.type} is not an action databases take`);
    return false;
  });
}

function failed(ctx: ReconcileContext, r: StoredResource<'Database'>, action: ActionProgress, message: string): StepResult {
  failAction(ctx, r, action, message);
  return { message: `${action.type} failed: ${message}`, usable: true, requeueAfterMs: 0 };
}

/** Apps using the database look again now: their URL carries the password. */
function wakeApps(ctx: ReconcileContext, r: StoredResource<'Database'>): void {
  for (const user of ctx.store.resources.usersOf(r)) if (user.kind === 'App') ctx.wake(user.uid);
}
