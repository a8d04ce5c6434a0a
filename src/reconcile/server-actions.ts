/**
 * @module Actions on servers, once the server is in sync with its spec: `reboot` (marked running
 * before the power call and noted once sent, so after a crash at most a second reboot happens),
 * and `start` / `stop`, which the API pairs with a change of spec.state: they succeed once the
 * server has settled in that state, and fail if spec.state moved away first.
 */
import type { CloudDriver, ServerObserved } from '../drivers/contract.js';
import type { StoredResource } from '../model/resource.js';
import type { ActionProgress } from '../store/actions.js';
import type { ReconcileContext } from './context.js';
import type { StepResult } from './managed.js';
import { attempt } from './record-steps.js';
import { failAction, settleStateAction } from './state-actions.js';
import type { StatusDraft } from './status-draft.js';

export const REASON_REBOOTING = 'Rebooting';
export const REASON_REBOOTED = 'Rebooted';

/** The running reboot's mark once the vendor has been asked. */
const STEP_REBOOT_SENT = 'reboot-sent';

/**
 * Carries the server's actions forward, oldest first: actions that only need finishing are
 * finished in this pass; the first that needs the vendor ends the pass. Null when none is left.
 */
export async function serverActionStep(
  ctx: ReconcileContext,
  r: StoredResource<'Server'>,
  observed: ServerObserved,
  draft: StatusDraft,
  driver: () => Promise<CloudDriver>,
): Promise<StepResult | null> {
  for (const action of ctx.store.actions.open(r.uid)) {
    if (action.type === 'start' || action.type === 'stop') {
      settleStateAction(ctx, r, action, r.spec.state ?? 'running', observed);
      continue;
    }
    if (action.type !== 'reboot') {
      failAction(ctx, r, action, `${action.type} is not an action servers take`);
      continue;
    }
    const step = await reboot(ctx, r, action, observed, draft, driver);
    if (step !== null) return step;
  }
  return null;
}

async function reboot(
  ctx: ReconcileContext,
  r: StoredResource<'Server'>,
  action: ActionProgress,
  observed: ServerObserved,
  draft: StatusDraft,
  driver: () => Promise<CloudDriver>,
): Promise<StepResult | null> {
  if (action.step === STEP_REBOOT_SENT) {
    // The vendor took the reboot and the server has settled running again (afterSync runs only then).
    ctx.store.actions.finish(action.id, 'succeeded', `server ${observed.id} rebooted`);
    ctx.record(r, 'Normal', REASON_REBOOTED, `server ${observed.id} rebooted (action ${action.id})`);
    return null;
  }
  if (observed.status !== 'running') {
    failAction(ctx, r, action, `server ${observed.id} is ${observed.status}; only a running server can be rebooted`);
    return null;
  }
  // Marked running before the call: after a crash between the two, the reboot is sent again.
  ctx.store.actions.markRunning(action.id);
  const cloud = await driver();
  const sent = await attempt('reboot', () => cloud.power(observed.id, 'reboot'));
  if (!sent.ok) {
    failAction(ctx, r, action, sent.message);
    return null;
  }
  ctx.store.actions.markStep(action.id, STEP_REBOOT_SENT);
  draft.setPhase(sent.value.status === 'running' ? 'running' : 'rebooting');
  const message = `rebooting server ${observed.id} (action ${action.id})`;
  ctx.record(r, 'Normal', REASON_REBOOTING, message);
  return { message };
}
