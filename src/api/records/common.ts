/**
 * @module What every API record carries (API.md "Conventions"), taken from a stored resource,
 * and the manifest metadata a REST body turns into.
 */
import type { AnyStoredResource, Condition, ObjectMeta } from '../../model/resource.js';
import { DEFAULT_NAMESPACE } from '../../model/resource.js';
import { REPLACEMENT_FIELDS, type Kind } from '../../model/kinds.js';

export interface ConditionRecord {
  type: string;
  status: string;
  reason: string;
  message: string;
  last_transition_time: string;
}

export interface BaseRecord {
  id: string;
  name: string;
  namespace: string;
  status: string;
  created_at: string;
  updated_at: string;
  generation: number;
  observed_generation: number;
  conditions: ConditionRecord[];
  source: 'api' | 'git' | 'kubernetes';
  labels: Record<string, string>;
}

/** `git:<id>` → `git`; `kubernetes` → `kubernetes`; api and the CLI → `api`. */
export function sourceLabel(source: string): BaseRecord['source'] {
  if (source.startsWith('git')) return 'git';
  if (source === 'kubernetes') return 'kubernetes';
  return 'api';
}

export function conditionRecord(c: Condition): ConditionRecord {
  return { type: c.type, status: c.status, reason: c.reason, message: c.message, last_transition_time: c.lastTransitionTime };
}

export function baseRecord(r: AnyStoredResource): BaseRecord {
  return {
    id: r.uid,
    name: r.name,
    namespace: r.namespace,
    // Providers have no deleting status in API.md: they go as soon as nothing uses them.
    status: r.deletionTimestamp !== null && r.kind !== 'Provider' ? 'deleting' : r.status.phase,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    generation: r.generation,
    observed_generation: r.status.observedGeneration,
    conditions: r.status.conditions.map(conditionRecord),
    source: sourceLabel(r.source),
    labels: r.labels,
  };
}

/** Metadata of a resource created through the API: the default namespace, labels as given. */
export function apiMetadata(name: string, labels: Record<string, string> | undefined, annotations?: Record<string, string>): ObjectMeta {
  return {
    name,
    namespace: DEFAULT_NAMESPACE,
    ...(labels && Object.keys(labels).length > 0 ? { labels } : {}),
    ...(annotations && Object.keys(annotations).length > 0 ? { annotations } : {}),
  };
}

/** Metadata of an existing resource, with new labels and extra annotations when given. */
export function keptMetadata(r: AnyStoredResource, labels?: Record<string, string>, annotations?: Record<string, string>): ObjectMeta {
  return { ...apiMetadata(r.name, labels ?? r.labels, { ...r.annotations, ...annotations }), namespace: r.namespace };
}

/** The fields whose change replaces the resource, between two specs (empty when none). */
export function replacingChanges(kind: Kind, before: object, after: object): string[] {
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  return REPLACEMENT_FIELDS[kind].filter((field) => JSON.stringify(b[field]) !== JSON.stringify(a[field]))
    .map((field) => `${field} ${JSON.stringify(b[field] ?? null)} → ${JSON.stringify(a[field] ?? null)}`);
}
