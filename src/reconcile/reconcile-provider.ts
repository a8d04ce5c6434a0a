/**
 * @module Providers: their credentials are tested against the vendor (phase valid or invalid);
 * a provider is removed once no server uses it. Nothing is created at the vendor for it.
 */
import type { StoredResource } from '../model/resource.js';
import type { ReconcileContext, ReconcileResult } from './context.js';
import { requireNoDependents } from './dependencies.js';
import { doing } from './errors.js';
import { REMOVED } from './managed.js';
import type { StatusDraft } from './status-draft.js';

export const REASON_CREDENTIALS_VALID = 'CredentialsValid';
export const REASON_CREDENTIALS_INVALID = 'CredentialsInvalid';

export async function reconcileProvider(ctx: ReconcileContext, r: StoredResource<'Provider'>, draft: StatusDraft): Promise<ReconcileResult> {
  if (r.deletionTimestamp !== null) {
    requireNoDependents(ctx, r);
    if (!ctx.store.resources.removeDeleted(r.uid, r.generation)) return { requeueAfterMs: 0 };
    ctx.record(r, 'Normal', 'Deleted', `provider ${r.name} removed`);
    ctx.wakeWaiting();
    return REMOVED;
  }
  const test = await doing('credential test', () => ctx.drivers.credentialTestFor(r));
  const before = draft.status.phase;
  if (test.ok) {
    draft.setPhase('valid');
    draft.markReady(REASON_CREDENTIALS_VALID, test.message);
  } else {
    draft.setPhase('invalid');
    draft.setCondition('Ready', 'False', REASON_CREDENTIALS_INVALID, test.message);
    draft.setCondition('Synced', 'True', 'ReconcileSuccess', '');
    draft.status.observedGeneration = r.generation;
  }
  if (before !== draft.status.phase) {
    ctx.record(r, test.ok ? 'Normal' : 'Warning', test.ok ? REASON_CREDENTIALS_VALID : REASON_CREDENTIALS_INVALID, test.message);
  }
  return { requeueAfterMs: ctx.resyncMs('Provider') };
}
