/**
 * @module Following resources until they converge: Ready at their generation, failed (their
 * kind's failure phase), blocked by a failed dependency, or — for deletions — gone. Prints one
 * line per change of phase or condition, so `apply` shows live progress per resource.
 */
import type { Kind } from '../model/kinds.js';
import { displayName } from '../model/resource.js';
import { REASON_WAITING_FOR_DEPENDENCY } from '../reconcile/dependencies.js';
import { FAILED_PHASE } from '../reconcile/reconcile-resource.js';
import { isReadyAt } from '../reconcile/status-draft.js';
import type { Store } from '../store/store.js';
import { ResourceSnapshot, type FollowedResource } from './resource-snapshot.js';

export interface ConvergenceTarget {
  uid: string;
  tenant: string;
  kind: Kind;
  namespace: string;
  name: string;
  /** Waiting for it to be gone rather than Ready. */
  deleting: boolean;
}

export type TargetState = 'ready' | 'failed' | 'blocked' | 'gone' | 'working';

export interface ConvergenceReport {
  ok: boolean;
  timedOut: boolean;
  states: Map<string, { target: ConvergenceTarget; state: TargetState; detail: string }>;
}

export interface FollowOptions {
  timeoutMs: number;
  intervalMs?: number;
  write: (line: string) => void;
  /** Called on each round, e.g. to let an in-process controller read the feed. */
  onTick?: () => void;
  /** When given, a target is only settled once this says it was reconciled in this run. */
  observed?: (uid: string) => boolean;
  /** Stop following (e.g. the process is shutting down); the report then says timed out. */
  cancelled?: () => boolean;
}

function failed(r: FollowedResource): boolean {
  return r.status.phase === FAILED_PHASE[r.kind] && r.status.observedGeneration >= r.generation && r.deletionTimestamp === null;
}

function describe(r: FollowedResource): string {
  const ready = r.status.conditions.find((c) => c.type === 'Ready');
  if (r.deletionTimestamp === null && (ready === undefined || ready.observedGeneration < r.generation) && r.status.observedGeneration < r.generation && r.generation > 1) {
    return `${r.status.phase}: applying generation ${r.generation}`;
  }
  const synced = r.status.conditions.find((c) => c.type === 'Synced');
  const problem = synced?.status === 'False' ? synced.message : '';
  const message = problem || ready?.message || '';
  return message ? `${r.status.phase}: ${message}` : r.status.phase;
}

/** The state of each target in `snapshot` (refreshed by the caller). */
export function assess(snapshot: ResourceSnapshot, targets: readonly ConvergenceTarget[], observed?: (uid: string) => boolean): ConvergenceReport['states'] {
  const states: ConvergenceReport['states'] = new Map();
  const lookup = (tenant: string, ref: { kind: Kind; namespace: string; name: string }): FollowedResource | undefined => snapshot.find(tenant, ref);
  const isFailed = (r: FollowedResource | undefined): boolean => r !== undefined && failed(r);
  for (const target of targets) {
    const r = snapshot.get(target.uid);
    if (!r) {
      states.set(target.uid, { target, state: target.deleting ? 'gone' : 'failed', detail: target.deleting ? 'deleted' : 'no longer exists' });
      continue;
    }
    const detail = describe(r);
    if (target.deleting || (observed !== undefined && !observed(target.uid))) {
      states.set(target.uid, { target, state: 'working', detail });
    } else if (isReadyAt(r.status, r.generation)) {
      states.set(target.uid, { target, state: 'ready', detail });
    } else if (isFailed(r)) {
      states.set(target.uid, { target, state: 'failed', detail });
    } else {
      const waiting = r.status.conditions.find((c) => c.type === 'Ready')?.reason === REASON_WAITING_FOR_DEPENDENCY;
      const blocker = waiting ? failedDependency(lookup, r, new Set()) : undefined;
      states.set(target.uid, blocker ? { target, state: 'blocked', detail: `blocked: ${blocker} failed` } : { target, state: 'working', detail });
    }
  }
  return states;
}

/** A dependency (direct or transitive) that has failed, named for messages. */
function failedDependency(
  lookup: (tenant: string, ref: { kind: Kind; namespace: string; name: string }) => FollowedResource | undefined,
  r: FollowedResource,
  visited: Set<string>,
): string | undefined {
  if (visited.has(r.uid)) return undefined;
  visited.add(r.uid);
  for (const ref of r.references) {
    const dep = lookup(r.tenant, { kind: ref.target, namespace: r.namespace, name: ref.name });
    if (!dep) continue;
    if (failed(dep)) return displayName(dep);
    const deeper = failedDependency(lookup, dep, visited);
    if (deeper) return deeper;
  }
  return undefined;
}

/** Polls until every target is settled or the timeout passes, printing changes as they happen. */
export async function followConvergence(store: Store, targets: readonly ConvergenceTarget[], options: FollowOptions): Promise<ConvergenceReport> {
  const deadline = Date.now() + options.timeoutMs;
  const printed = new Map<string, string>();
  // Each round reads only what was written since the last one, not every resource again.
  const snapshot = new ResourceSnapshot(store, new Set(targets.map((t) => t.tenant)));
  for (;;) {
    if (options.cancelled?.()) return { ok: false, timedOut: true, states: new Map() };
    options.onTick?.();
    snapshot.refresh();
    const states = assess(snapshot, targets, options.observed);
    for (const { target, state, detail } of states.values()) {
      const line = `${displayName(target)}: ${state === 'gone' ? 'deleted' : detail}`;
      if (printed.get(target.uid) !== line) {
        printed.set(target.uid, line);
        options.write(line);
      }
    }
    const settled = [...states.values()].every((s) => s.state !== 'working');
    if (settled || Date.now() >= deadline) {
      const ok = settled && [...states.values()].every((s) => s.state === 'ready' || s.state === 'gone');
      return { ok, timedOut: !settled, states };
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200));
  }
}
