/**
 * @module Dependency waits: a resource waits (reason WaitingForDependency) until what it names is
 * there and Ready; a resource being deleted waits (WaitingForDependents) until nothing uses it.
 */
import type { Kind } from '../model/kinds.js';
import { displayName, type AnyStoredResource, type ResourceIdentity, type StoredResource } from '../model/resource.js';
import type { ReconcileContext } from './context.js';
import { WaitError } from './errors.js';

export const REASON_WAITING_FOR_DEPENDENCY = 'WaitingForDependency';
export const REASON_WAITING_FOR_DEPENDENTS = 'WaitingForDependents';
export const REASON_DEPENDENCY_FAILED = 'DependencyFailed';

/** The phases in which a resource needs its user (credentials refused, a vendor's rejection). */
const FAILED_PHASES: ReadonlySet<string> = new Set(['invalid', 'error', 'failed']);

const DEPENDENCY_RETRY_MS = 5_000;

/** Names one resource across tenants, for the controller's index of who waits for whom. */
export function dependencyKey(tenant: string, ref: { kind: Kind; namespace: string; name: string }): string {
  return `${tenant}/${ref.kind}/${ref.namespace}/${ref.name}`;
}

/** The named resource of the same tenant and namespace, whatever its state; waits if it does not exist. */
export function findDependency<K extends Kind>(ctx: ReconcileContext, owner: AnyStoredResource, kind: K, name: string): StoredResource<K> {
  const found = ctx.store.resources.find(owner.tenant, { kind, namespace: owner.namespace, name });
  if (!found) {
    const ref = { kind, namespace: owner.namespace, name };
    throw new WaitError(REASON_WAITING_FOR_DEPENDENCY, `waiting for ${displayName(ref)}, which does not exist`, DEPENDENCY_RETRY_MS, dependencyKey(owner.tenant, ref));
  }
  return found;
}

/**
 * The named resource, Ready; otherwise a wait that says why. A dependency being updated in
 * place stays Ready meanwhile (a resize does not take a server away from its databases); one
 * being created or replaced is not Ready until it is usable.
 */
export function requireReady<K extends Kind>(ctx: ReconcileContext, owner: AnyStoredResource, kind: K, name: string): StoredResource<K> {
  const dep = findDependency(ctx, owner, kind, name);
  if (dep.deletionTimestamp !== null) {
    throw new WaitError(REASON_WAITING_FOR_DEPENDENCY, `waiting for ${displayName(dep)}, which is being deleted`, DEPENDENCY_RETRY_MS, dependencyKey(dep.tenant, dep));
  }
  if (dep.status.conditions.find((c) => c.type === 'Ready')?.status !== 'True') {
    const ready = dep.status.conditions.find((c) => c.type === 'Ready');
    const why = ready?.message ? `: ${ready.message}` : '';
    if (FAILED_PHASES.has(dep.status.phase) && dep.status.observedGeneration === dep.generation) {
      // Not a wait that ends by itself: say what failed, and look again as soon as it is fixed.
      throw new WaitError(REASON_DEPENDENCY_FAILED, `${displayName(dep)} is ${dep.status.phase}${why}`, DEPENDENCY_RETRY_MS, dependencyKey(dep.tenant, dep), true);
    }
    throw new WaitError(REASON_WAITING_FOR_DEPENDENCY, `waiting for ${displayName(dep)} to be ready (${dep.status.phase}${why})`, DEPENDENCY_RETRY_MS, dependencyKey(dep.tenant, dep));
  }
  return dep;
}

/** Throws a wait while other resources still use `resource`. */
export function requireNoDependents(ctx: ReconcileContext, resource: ResourceIdentity): void {
  const users = ctx.store.resources.usersOf(resource).filter((u) => u.uid !== resource.uid);
  if (users.length > 0) {
    const names = users.map((u) => `${displayName(u)}${u.deletionTimestamp ? ' (being deleted)' : ''}`).join(', ');
    throw new WaitError(REASON_WAITING_FOR_DEPENDENTS, `still used by ${names}; it is deleted once they are gone`, DEPENDENCY_RETRY_MS);
  }
}
