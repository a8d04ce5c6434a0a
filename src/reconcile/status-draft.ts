/**
 * @module A resource's status as a reconcile changes it: conditions are set through one
 * function that stamps observedGeneration and keeps lastTransitionTime unless the condition's
 * status really changed. Written back once, at the end of the reconcile, and only if changed.
 */
import { jsonEqual } from '../model/canonical-json.js';
import type { AnyStoredResource, Condition, ConditionStatus, ConditionType, ResourceStatus } from '../model/resource.js';

/** The condition `type` as set now: lastTransitionTime kept from `previous` unless its status really changed. */
export function conditionAfter(
  previous: readonly Condition[],
  type: ConditionType,
  status: ConditionStatus,
  reason: string,
  message: string,
  observedGeneration: number,
): Condition {
  const existing = previous.find((c) => c.type === type);
  const lastTransitionTime = existing && existing.status === status ? existing.lastTransitionTime : new Date().toISOString();
  return { type, status, reason, message, lastTransitionTime, observedGeneration };
}

export class StatusDraft {
  readonly status: ResourceStatus;

  constructor(private readonly resource: AnyStoredResource) {
    this.status = structuredClone(resource.status);
    this.status.endpoints ??= {};
    this.status.details ??= {};
  }

  get changed(): boolean {
    return !jsonEqual(this.status, this.resource.status);
  }

  setPhase(phase: string): void {
    this.status.phase = phase;
  }

  setCondition(type: ConditionType, status: ConditionStatus, reason: string, message: string): void {
    const next = conditionAfter(this.status.conditions, type, status, reason, message, this.resource.generation);
    this.status.conditions = [...this.status.conditions.filter((c) => c.type !== type), next].sort((a, b) =>
      a.type.localeCompare(b.type),
    );
  }

  condition(type: ConditionType): Condition | undefined {
    return this.status.conditions.find((c) => c.type === type);
  }

  /** Converged: Ready and Synced true, and the spec that got us here recorded as applied. */
  markReady(reason: string, message: string): void {
    this.setCondition('Ready', 'True', reason, message);
    this.setCondition('Synced', 'True', 'ReconcileSuccess', '');
    this.status.observedGeneration = this.resource.generation;
    this.status.appliedSpec = structuredClone(this.resource.spec) as unknown as Record<string, unknown>;
  }

  /** Still working towards it: not Ready, but nothing went wrong. */
  markProgressing(reason: string, message: string): void {
    this.setCondition('Ready', 'False', reason, message);
    this.setCondition('Synced', 'True', 'ReconcileSuccess', '');
  }
}

/** Whether a status shows the resource converged at its current generation. */
export function isReadyAt(status: ResourceStatus, generation: number): boolean {
  const ready = status.conditions.find((c) => c.type === 'Ready');
  return ready?.status === 'True' && status.observedGeneration === generation;
}
