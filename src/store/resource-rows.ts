/**
 * @module How a resource and its status are laid out in SQLite rows, and back.
 */
import type { Kind } from '../model/kinds.js';
import type { AnyStoredResource, Condition, ResourceStatus } from '../model/resource.js';

export interface ResourceRow {
  uid: string;
  tenant: string;
  kind: string;
  namespace: string;
  name: string;
  labels: string;
  annotations: string;
  spec: string;
  generation: number;
  resource_version: number;
  spec_version: number;
  source: string;
  created_at: string;
  updated_at: string;
  deletion_timestamp: string | null;
  phase: string | null;
  conditions: string | null;
  observed_generation: number | null;
  external_id: string | null;
  endpoints: string | null;
  applied_spec: string | null;
  incarnation: number | null;
  details: string | null;
  status_version: number | null;
}

/** Columns of a resource joined with its status; every query that returns resources uses it. */
export const RESOURCE_COLUMNS = `r.uid, r.tenant, r.kind, r.namespace, r.name, r.labels, r.annotations, r.spec,
  r.generation, r.resource_version, r.spec_version, r.source, r.created_at, r.updated_at, r.deletion_timestamp,
  s.phase, s.conditions, s.observed_generation, s.external_id, s.endpoints, s.applied_spec, s.incarnation, s.details, s.status_version`;

export const RESOURCE_FROM = `resources r LEFT JOIN resource_status s ON s.uid = r.uid`;

/** A new resource's status: a provider starts `untested`, everything else `pending`. */
export function initialStatus(kind: Kind): ResourceStatus {
  return { phase: kind === 'Provider' ? 'untested' : 'pending', conditions: [], observedGeneration: 0, externalId: null, endpoints: {}, appliedSpec: null, incarnation: 0, details: {} };
}

export function rowToResource(row: ResourceRow): AnyStoredResource {
  const status: ResourceStatus =
    row.phase === null
      ? initialStatus(row.kind as Kind)
      : {
          phase: row.phase,
          conditions: JSON.parse(row.conditions ?? '[]') as Condition[],
          observedGeneration: row.observed_generation ?? 0,
          externalId: row.external_id,
          endpoints: JSON.parse(row.endpoints ?? '{}') as Record<string, string | number | null>,
          appliedSpec: row.applied_spec === null ? null : (JSON.parse(row.applied_spec) as Record<string, unknown>),
          incarnation: row.incarnation ?? 0,
          details: JSON.parse(row.details ?? '{}') as Record<string, unknown>,
        };
  return {
    uid: row.uid,
    tenant: row.tenant,
    kind: row.kind as Kind,
    namespace: row.namespace,
    name: row.name,
    labels: JSON.parse(row.labels) as Record<string, string>,
    annotations: JSON.parse(row.annotations) as Record<string, string>,
    spec: JSON.parse(row.spec) as never,
    generation: row.generation,
    resourceVersion: row.resource_version,
    specVersion: row.spec_version,
    statusVersion: row.status_version ?? 0,
    source: row.source,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletionTimestamp: row.deletion_timestamp,
    status,
  };
}

export function statusToRow(uid: string, status: ResourceStatus, now: string): Record<string, unknown> {
  return {
    uid,
    phase: status.phase,
    conditions: JSON.stringify(status.conditions),
    observed_generation: status.observedGeneration,
    external_id: status.externalId ?? null,
    endpoints: JSON.stringify(status.endpoints ?? {}),
    applied_spec: status.appliedSpec ? JSON.stringify(status.appliedSpec) : null,
    incarnation: status.incarnation ?? 0,
    details: JSON.stringify(status.details ?? {}),
    updated_at: now,
  };
}
