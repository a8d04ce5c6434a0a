/**
 * @module `start` and `stop` actions on whatever has a desired run state (servers, apps): the API
 * pairs each with a change of spec.state, so the action is decided once the resource has
 * settled in spec.state — succeeded when it is in the action's state, failed when spec.state
 * moved elsewhere first. Also how any action is failed, with a Warning event.
 */
import type { ResourceIdentity } from '../model/resource.js';
import type { ActionProgress } from '../store/actions.js';
import type { ReconcileContext } from './context.js';

export const REASON_STARTED = 'Started';
export const REASON_STOPPED = 'Stopped';
export const REASON_ACTION_FAILED = 'ActionFailed';

/**
 * Decides a start or stop once the resource has settled in `wanted` (its spec.state);
 * `observedStatus` is what the vendor says it is. Other actions are left alone.
 */
export function settleStateAction(
  ctx: ReconcileContext,
  r: ResourceIdentity,
  action: ActionProgress,
  wanted: 'running' | 'stopped',
  observed: { id: string; status: string },
): void {
  if (action.type !== 'start' && action.type !== 'stop') return;
  const target = action.type === 'start' ? 'running' : 'stopped';
  const what = r.kind.toLowerCase();
  if (wanted !== target) {
    failAction(ctx, r, action, `spec.state changed to ${wanted} before the ${what} ${action.type === 'start' ? 'started' : 'stopped'}`);
  } else if (observed.status === target) {
    ctx.store.actions.finish(action.id, 'succeeded', `${what} ${observed.id} is ${target}`);
    ctx.record(r, 'Normal', target === 'running' ? REASON_STARTED : REASON_STOPPED, `${what} ${observed.id} is ${target} (${action.type} ${action.id})`);
  }
}

/** Ends an action as failed, saying why, in its record and as a Warning event. */
export function failAction(ctx: ReconcileContext, r: ResourceIdentity, action: ActionProgress, message: string): void {
  ctx.store.actions.finish(action.id, 'failed', message);
  ctx.record(r, 'Warning', REASON_ACTION_FAILED, `${action.type} ${action.id} failed: ${message}`);
}
