/**
 * @module One reconcile of one resource, whatever its kind: read it fresh from the store, run
 * its kind's reconciler, and — on every path, failures included — record what happened in its
 * status (written once, only if changed) and, for new failures, a Warning event; once that
 * status is written, a Ready event when the resource became ready and a Failed one when it
 * entered its failed phase (what event webhooks send as resource.ready and resource.failed).
 * A FencedWriteError (sharded: the shard's lease was lost) ends it at once and is thrown on.
 */
import type { Kind } from '../model/kinds.js';
import type { AnyStoredResource } from '../model/resource.js';
import type { ReconcileContext, ReconcileResult } from './context.js';
import { isCancelled } from './call-deadlines.js';
import { classifyFailure, type ClassifiedFailure } from './errors.js';
import { FencedWriteError } from './fenced-store.js';
import { REMOVED } from './managed.js';
import { reconcileApp } from './reconcile-app.js';
import { reconcileDatabase } from './reconcile-database.js';
import { reconcileProvider } from './reconcile-provider.js';
import { reconcileServer } from './reconcile-server.js';
import { reconcileSshKey } from './reconcile-ssh-key.js';
import { reconcileAlertRule } from './reconcile-alert-rule.js';
import { StatusDraft } from './status-draft.js';

/** The phase a kind shows when it stalls: it needs the user. */
export const FAILED_PHASE: Record<Kind, string> = { Provider: 'invalid', SSHKey: 'error', Server: 'error', Database: 'error', App: 'failed', AlertRule: 'error' };

/** `becameReady`/`becameFailed`: what waits on it has something new to see. */
export type ReconcileOutcome = { ok: true; result: ReconcileResult; becameReady: boolean; becameFailed: boolean } | { ok: false; failure: ClassifiedFailure; becameFailed: boolean };

export async function reconcileResource(ctx: ReconcileContext, resource: AnyStoredResource): Promise<ReconcileOutcome> {
  const draft = new StatusDraft(resource);
  const wasReady = draft.condition('Ready')?.status === 'True';
  let outcome: ReconcileOutcome;
  try {
    const result = await dispatch(ctx, resource, draft);
    if (result === REMOVED) return { ok: true, result: {}, becameReady: false, becameFailed: false };
    outcome = { ok: true, result, becameReady: !wasReady && draft.condition('Ready')?.status === 'True', becameFailed: becameFailed(resource, draft) };
  } catch (error) {
    // Another replica holds the resource's shard now: nothing more is written, not even the failure.
    if (error instanceof FencedWriteError) throw error;
    // Cut short because cairn is stopping: not the resource's failure. Nothing is recorded; what
    // was under way resumes on restart (a create in flight is found again by its key).
    if (isCancelled(error)) return { ok: false, failure: { kind: 'retry', reason: REASON_CANCELLED, message: (error as Error).message, retryAfterMs: 0 }, becameFailed: false };
    const failure = classifyFailure(error);
    recordFailure(ctx, resource, draft, failure);
    outcome = { ok: false, failure, becameFailed: becameFailed(resource, draft) };
  }
  if (draft.changed && !ctx.store.resources.writeStatus(resource.uid, resource.statusVersion, draft.status)) {
    // Another writer (the provider test route, another process) changed the status since it was
    // read: nothing of this reconcile's status is written over theirs. It is reconciled again
    // from a fresh read, as controller-runtime does on a 409; a create it made is found again by
    // its idempotency key (its pending create ends only with the write that records the id).
    return { ok: false, failure: statusConflict(resource), becameFailed: false };
  }
  if (outcome.ok && outcome.becameReady) ctx.record(resource, 'Normal', REASON_BECAME_READY, `${resource.kind.toLowerCase()} ${resource.name} is ready`);
  if (outcome.becameFailed) {
    ctx.record(resource, 'Warning', REASON_BECAME_FAILED, `${resource.kind.toLowerCase()} ${resource.name} is ${draft.status.phase}: ${draft.condition('Ready')?.message ?? 'no reason given'}`);
  }
  return outcome;
}

export const REASON_STATUS_CONFLICT = 'StatusConflict';
export const REASON_BECAME_READY = 'Ready';
export const REASON_BECAME_FAILED = 'Failed';
export const REASON_CANCELLED = 'Cancelled';

function statusConflict(r: AnyStoredResource): ClassifiedFailure {
  return {
    kind: 'retry',
    reason: REASON_STATUS_CONFLICT,
    message: `${r.kind}/${r.name}: its status changed since version ${r.statusVersion} was read; reconciling again from a fresh read`,
    retryAfterMs: 0,
  };
}

function becameFailed(resource: AnyStoredResource, draft: StatusDraft): boolean {
  const failed = FAILED_PHASE[resource.kind];
  return draft.status.phase === failed && resource.status.phase !== failed;
}

function dispatch(ctx: ReconcileContext, r: AnyStoredResource, draft: StatusDraft): Promise<ReconcileResult> {
  switch (r.kind) {
    case 'Provider':
      return reconcileProvider(ctx, r, draft);
    case 'SSHKey':
      return reconcileSshKey(ctx, r, draft);
    case 'Server':
      return reconcileServer(ctx, r, draft);
    case 'Database':
      return reconcileDatabase(ctx, r, draft);
    case 'App':
      return reconcileApp(ctx, r, draft);
    case 'AlertRule':
      return reconcileAlertRule(ctx, r, draft);
  }
}

function recordFailure(ctx: ReconcileContext, r: AnyStoredResource, draft: StatusDraft, failure: ClassifiedFailure): void {
  const previous = draft.condition(failure.kind === 'wait' ? 'Ready' : 'Synced');
  const isNew = previous?.message !== failure.message;
  switch (failure.kind) {
    case 'wait':
      // The Ready condition says what it waits for; an event per waiting resource would only be noise.
      draft.setCondition('Ready', 'False', failure.reason, failure.message);
      if (failure.failed && r.deletionTimestamp === null) draft.setPhase(FAILED_PHASE[r.kind]);
      return;
    case 'stall':
      if (r.deletionTimestamp === null) draft.setPhase(FAILED_PHASE[r.kind]);
      draft.setCondition('Ready', 'False', failure.reason, failure.message);
      draft.setCondition('Synced', 'False', failure.reason, failure.message);
      draft.status.observedGeneration = r.generation;
      if (isNew) ctx.record(r, 'Warning', failure.reason, failure.message);
      return;
    case 'retry':
      draft.setCondition('Synced', 'False', failure.reason, `${failure.message} (retrying)`);
      if (previous?.message !== `${failure.message} (retrying)`) ctx.record(r, 'Warning', failure.reason, failure.message);
      return;
  }
}
