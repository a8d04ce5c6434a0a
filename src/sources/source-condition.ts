/**
 * @module A source's Ready condition, set the way resources' conditions are: lastTransitionTime
 * kept unless the status really changed.
 */
import type { Condition, ConditionStatus } from '../model/resource.js';
import { conditionAfter } from '../reconcile/status-draft.js';

export const REASON_APPLIED = 'Applied';
export const REASON_VALIDATION_FAILED = 'ValidationFailed';
export const REASON_FETCH_FAILED = 'FetchFailed';
export const REASON_OWNERSHIP_CONFLICT = 'OwnershipConflict';
export const REASON_SUSPENDED = 'Suspended';
/** The revision would take the tenant past its plan's limits (billing on). */
export const REASON_QUOTA_EXCEEDED = 'QuotaExceeded';

export function readyCondition(previous: readonly Condition[], status: ConditionStatus, reason: string, message: string): Condition[] {
  return [conditionAfter(previous, 'Ready', status, reason, message, 1)];
}
