/**
 * @module Databases: placed on a Ready server through its provider's runtime, created with a
 * password cairn generated and stored first; storage and version changed in place, engine or
 * server changes replace it (with a new password). Once available, what was asked of it is
 * carried out one step per pass: restores, credential rotations, backups (manual, then
 * scheduled, then retention). Deleting takes a final backup first; `deletionPolicy: Orphan`
 * leaves it at the vendor.
 */
import type { DatabaseDesired, DatabaseObserved } from '../drivers/contract.js';
import { effectiveDeletionPolicy, type StoredResource } from '../model/resource.js';
import type { ReconcileContext, ReconcileResult } from './context.js';
import { missingPasswordStep, restoreStep, rotationStep, vendorPasswordStep } from './database-actions.js';
import { pendingBackupStep, retentionStep, runningBackupStep, scheduledBackupStep, untilNextScheduledBackup, type DatabaseAtVendor } from './database-backups.js';
import { forgetPasswords, passwordForCreate, storedPassword } from './database-password.js';
import { finalBackupStep } from './final-backup.js';
import { REASON_CREATING, observeManagedDrift, reconcileManaged, type ManagedAdapter, type Progress, type StepResult } from './managed.js';
import { databaseHomeOf, specAtVendor } from './database-home.js';
import type { StatusDraft } from './status-draft.js';

/** The runtime holding the observed database: where its spec puts it, or (deleting) where it was applied. */
async function atVendor(ctx: ReconcileContext, r: StoredResource<'Database'>, observed: DatabaseObserved, purpose: 'converge' | 'delete'): Promise<DatabaseAtVendor> {
  const home = await databaseHomeOf(ctx, r, specAtVendor(r, purpose), purpose);
  return { runtime: home.databases, externalId: observed.id, vendorChoosesPassword: home.vendorChoosesPassword === true };
}

/** The first step that has something to do, in order; null when none has. */
async function firstStep(steps: ReadonlyArray<() => Promise<StepResult | null>>): Promise<StepResult | null> {
  for (const step of steps) {
    const result = await step();
    if (result !== null) return result;
  }
  return null;
}

const databaseAdapter: ManagedAdapter<'Database', DatabaseDesired, DatabaseObserved> = {
  kind: 'Database',
  creatingPhase: 'creating',
  deletingPhase: 'deleting',

  async connect(ctx, r, spec, purpose) {
    const home = await databaseHomeOf(ctx, r, spec, purpose);
    return { client: home.databases, vendor: home.vendor };
  },

  async desired(ctx, r) {
    const home = await databaseHomeOf(ctx, r, r.spec, 'converge');
    // The password only matters at create (see beforeApply); later it changes only through setPassword.
    const password = storedPassword(ctx, r) ?? '';
    return {
      name: r.name, type: r.spec.type, version: r.spec.version, storageGb: r.spec.storageGb ?? null, placement: home.placement, password,
      ...(home.managed ? { managed: home.managed } : {}),
    };
  },

  beforeApply(ctx, r, desired, _draft, operation) {
    // Stored before the create reaches the vendor; a retry after a crash sends the same one.
    return operation === 'create' ? { ...desired, password: passwordForCreate(ctx, r) } : desired;
  },

  drift(_ctx, _r, desired, observed) {
    const changes: string[] = [];
    if (desired.managed && observed.size !== undefined && observed.size !== desired.managed.size) changes.push(`size: ${observed.size} → ${desired.managed.size}`);
    if (observed.storageGb !== desired.storageGb) changes.push(`storageGb: ${observed.storageGb ?? 'none'} → ${desired.storageGb ?? 'none'}`);
    if (observed.version !== desired.version) changes.push(`version: ${observed.version} → ${desired.version}`);
    if (observed.down !== undefined) changes.push(`running: ${observed.down} → started again`);
    return changes;
  },

  requested(_ctx, _r, _desired, observed) {
    // Its creation was cut short (the cairn process making it was killed): made again, not drift.
    return observed.interrupted === undefined ? null : { reason: REASON_CREATING, message: `database ${observed.id}: ${observed.interrupted}; creating it again` };
  },

  progress(_r, observed): Progress {
    switch (observed.status) {
      case 'available':
      case 'backing_up': // usable while a backup runs; the backup steps follow it
        return { phase: observed.status, settled: true };
      case 'error':
        return { phase: 'error', settled: true, failed: observed.message ?? `the vendor reports database ${observed.id} in error` };
      default:
        return { phase: observed.status, settled: false };
    }
  },

  endpoints(observed) {
    return { host: observed.host, port: observed.port };
  },

  details(observed) {
    return { engineVersion: observed.engineVersion };
  },

  async afterSync(ctx, r, observed, draft) {
    const db = await atVendor(ctx, r, observed, 'converge');
    return firstStep([
      () => vendorPasswordStep(ctx, r, db),
      () => missingPasswordStep(ctx, r, db),
      () => runningBackupStep(ctx, r, db, draft),
      () => restoreStep(ctx, r, db, draft),
      () => rotationStep(ctx, r, db),
      () => pendingBackupStep(ctx, r, db, draft),
      () => scheduledBackupStep(ctx, r, db, draft),
      () => retentionStep(ctx, r, db),
    ]);
  },

  nextCheckMs(ctx, r) {
    return untilNextScheduledBackup(ctx, r);
  },

  onGone(ctx, r) {
    // The next incarnation is created with a new password.
    forgetPasswords(ctx, r);
  },

  orphanOnDelete(r) {
    return effectiveDeletionPolicy(r) === 'Orphan';
  },

  importConflicts(_ctx, r, desired, observed) {
    const conflicts: string[] = [];
    if (observed.type !== desired.type) conflicts.push(`spec.type is ${JSON.stringify(desired.type)} but database ${observed.id} is ${JSON.stringify(observed.type)}`);
    if (!desired.managed && observed.serverId !== desired.placement.serverExternalId) {
      conflicts.push(`spec.server is ${r.spec.server} (${desired.placement.serverExternalId}) but database ${observed.id} is on server ${observed.serverId}`);
    }
    return conflicts;
  },

  async beforeDelete(ctx, r, observed, draft) {
    // Never available, so nothing was ever written to it: there is nothing to back up.
    if (observed.status === 'creating') return null;
    return finalBackupStep(ctx, r, await atVendor(ctx, r, observed, 'delete'), draft);
  },

  onRemoved(ctx, r) {
    ctx.store.transaction(() => {
      ctx.store.actions.failOpen(r.uid, `Database/${r.name} was deleted`);
      ctx.store.backups.failPending(r.uid, `Database/${r.name} was deleted before this backup started`);
      ctx.store.backups.forgetSchedule(r.uid);
      forgetPasswords(ctx, r);
    });
  },
};

/** What changed at the vendor behind cairn's back, without changing anything. */
export function observeDatabaseDrift(ctx: ReconcileContext, r: StoredResource<'Database'>): Promise<string[]> {
  return observeManagedDrift(ctx, r, databaseAdapter);
}

export function reconcileDatabase(ctx: ReconcileContext, r: StoredResource<'Database'>, draft: StatusDraft): Promise<ReconcileResult> {
  return reconcileManaged(ctx, r, draft, databaseAdapter);
}
