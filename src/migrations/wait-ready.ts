/**
 * @module Waiting for resources a migration applied to converge, as `cairn apply --wait` does: Ready
 * at their generation, or failed (their kind's failure phase, with the Ready condition's message),
 * or still working when the time is up. The reconcile loop of `cairn serve` does the work; this
 * only reads the store.
 */
import type { AnyStoredResource } from '../model/resource.js';
import { FAILED_PHASE } from '../reconcile/reconcile-resource.js';
import { isReadyAt } from '../reconcile/status-draft.js';
import type { Store } from '../store/store.js';

export class NotReadyError extends Error {
  override readonly name = 'NotReadyError';
}

function readyMessage(r: AnyStoredResource): string {
  const ready = r.status.conditions.find((c) => c.type === 'Ready');
  return ready?.message ? `${r.status.phase}: ${ready.message}` : r.status.phase;
}

/** Resolves with the resources once all are Ready; throws NotReadyError naming the first that failed or the ones still working. */
export async function waitReady(
  store: Store,
  uids: readonly string[],
  options: { timeoutMs: number; pollMs: number; signal: AbortSignal; nudge?: () => void; onWait?: (waitingFor: string) => void },
): Promise<AnyStoredResource[]> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    options.nudge?.();
    const resources = uids.map((uid) => {
      const r = store.resources.get(uid);
      if (!r) throw new NotReadyError(`a resource the migration made (${uid}) was deleted`);
      return r;
    });
    const failed = resources.find((r) => r.status.phase === FAILED_PHASE[r.kind] && r.status.observedGeneration >= r.generation);
    if (failed) throw new NotReadyError(`${failed.kind}/${failed.name} failed: ${readyMessage(failed)}`);
    const waiting = resources.filter((r) => !isReadyAt(r.status, r.generation));
    if (waiting.length === 0) return resources;
    const names = waiting.map((r) => `${r.kind}/${r.name} (${readyMessage(r)})`).join(', ');
    if (Date.now() >= deadline) throw new NotReadyError(`not ready after ${Math.round(options.timeoutMs / 1000)} s: ${names}`);
    options.onWait?.(`waiting for ${names}`);
    if (options.signal.aborted) throw new NotReadyError('stopped');
    await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
}
