/**
 * @module The plan: a pure, deterministic diff of desired against recorded state, as an ordered
 * list of changes (create, update, replace, delete, noop) with field-level diffs, replacement
 * reasons and sensitive values masked. Shared by `cairn plan`, the API's dry run and PR comments.
 *
 * Order is execution order. References only point at earlier kinds (KINDS), so:
 * 1. creates, updates, replaces and noops first, Provider → SSHKey → Server → Database → App, so that a
 *    resource comes after everything it references;
 * 2. then deletes, App → Database → Server → Provider, so that a resource goes before what it
 *    depended on. Deletes come last (like Argo CD's PruneLast) because an App that drops a
 *    reference to a Database must be updated before that Database is deleted.
 * Within a kind: by namespace, then name.
 *
 * A desired resource whose recorded one is being deleted plans as a `create`: it is created
 * again once the deletion finishes. A create whose manifest carries `cairn.dev/external-id` plans
 * as an `import` (the vendor's resource is observed and adopted, never created); so does adding
 * that annotation to a recorded resource that has no vendor id yet (`cairn import`). A recorded resource being deleted and no longer desired
 * plans as a `delete` (already under way), so that the plan shows it.
 */
import { KINDS, kindRank, type Kind } from './kinds.js';
import { ValidationError } from './errors.js';
import { diffResource } from './plan-diff.js';
import { DEFAULT_NAMESPACE, displayName, importedExternalId, resourceKey, type Manifest, type StoredResource } from './resource.js';

export const PLAN_FORMAT_VERSION = '1.0';

/** A desired resource, from a manifest (namespace already defaulted). */
export interface PlanDesired {
  kind: Kind;
  namespace: string;
  name: string;
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
  spec: object;
}

/** A recorded resource: its spec is the one last applied from a manifest. */
export interface PlanRecorded extends PlanDesired {
  uid: string;
  /** Deletion was already requested. */
  deleting: boolean;
  /** The owning source (`api`, `git:<id>`, `kubernetes`, `cli`); used by `scope.source`. */
  source?: string;
  /** The world as last observed, for drift (not compared yet). */
  observed?: Record<string, unknown> | null;
  /** The vendor's id once cairn recorded one; null when it has none yet; undefined when not known. */
  externalId?: string | null;
}

export type PlanAction = 'create' | 'import' | 'update' | 'replace' | 'delete' | 'noop';

export interface FieldDiff {
  /** Dotted: `spec.size`, `metadata.labels.team`, `spec.env.API_KEY`, `spec.databases[1]`. */
  path: string;
  /** `undefined` when absent; `(sensitive)` when masked. */
  before: unknown;
  after: unknown;
  forcesReplacement: boolean;
  sensitive: boolean;
}

export interface PlannedChange {
  action: PlanAction;
  kind: Kind;
  namespace: string;
  name: string;
  /** The recorded resource's uid; absent on creates. */
  uid?: string;
  diff: FieldDiff[];
  /** E.g. `spec.region: changing the region replaces the server`. */
  replacementReasons: string[];
  /** On imports: the vendor's id the resource is adopted by (`cairn.dev/external-id`). */
  externalId?: string;
}

export type PlanSummary = Record<PlanAction, number>;

export interface Plan {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  changes: PlannedChange[];
  summary: PlanSummary;
}

/** Restricts a plan to part of the world. */
export interface PlanScope {
  /** Only resources of these kinds are planned (desired and recorded alike). */
  kinds?: readonly Kind[];
  /** Only resources in these namespaces are planned (desired and recorded alike). */
  namespaces?: readonly string[];
  /** Only recorded resources owned by this source are deleted when pruning (a git source's own). */
  source?: string;
}

export interface PlanOptions {
  /** Recorded resources absent from desired are deletes (default true); false omits them. */
  prune?: boolean;
  scope?: PlanScope;
}

/**
 * Plans the changes that make `recorded` match `desired`. A resource declared twice in `desired`
 * is a ValidationError; one recorded twice is a bug (Error).
 */
export function planChanges(desired: readonly PlanDesired[], recorded: readonly PlanRecorded[], options: PlanOptions = {}): Plan {
  const inScope = scopeFilter(options.scope);
  const recordedByKey = new Map<string, PlanRecorded>();
  for (const r of recorded) {
    if (!inScope(r)) continue;
    const key = resourceKey(r);
    if (recordedByKey.has(key)) throw new Error(`plan: recorded resource ${key} appears twice`);
    recordedByKey.set(key, r);
  }

  const changes: PlannedChange[] = [];
  const desiredKeys = new Set<string>();
  for (const d of desired) {
    if (!inScope(d)) continue;
    const key = resourceKey(d);
    if (desiredKeys.has(key)) throw new ValidationError(`${displayName(d)} is declared twice`);
    desiredKeys.add(key);
    const r = recordedByKey.get(key);
    changes.push(r === undefined || r.deleting ? planCreate(d) : planAgainstRecorded(d, r));
  }

  if (options.prune ?? true) {
    const prunableSource = options.scope?.source;
    for (const [key, r] of recordedByKey) {
      if (desiredKeys.has(key)) continue;
      if (prunableSource !== undefined && r.source !== prunableSource) continue;
      changes.push(planDelete(r));
    }
  }

  const ordered = inExecutionOrder(changes);
  return { formatVersion: PLAN_FORMAT_VERSION, changes: ordered, summary: summarize(ordered) };
}

/** The plan's view of a manifest. */
export function desiredFromManifest(m: Manifest): PlanDesired {
  return {
    kind: m.kind,
    namespace: m.metadata.namespace ?? DEFAULT_NAMESPACE,
    name: m.metadata.name,
    labels: m.metadata.labels ?? {},
    annotations: m.metadata.annotations ?? {},
    spec: m.spec,
  };
}

/** The plan's view of a stored resource. */
export function recordedFromStored(r: StoredResource): PlanRecorded {
  return {
    kind: r.kind,
    namespace: r.namespace,
    name: r.name,
    labels: r.labels,
    annotations: r.annotations,
    spec: r.spec,
    uid: r.uid,
    deleting: r.deletionTimestamp !== null,
    source: r.source,
    externalId: r.status.externalId ?? null,
  };
}

/** True when applying the plan would change something. */
export function planHasChanges(plan: Plan): boolean {
  const { create, import: imports, update, replace, delete: deletes } = plan.summary;
  return create + imports + update + replace + deletes > 0;
}

function planCreate(d: PlanDesired): PlannedChange {
  const diff = diffResource(d.kind, null, d);
  const externalId = importedExternalId(d);
  if (externalId !== undefined) return { action: 'import', kind: d.kind, namespace: d.namespace, name: d.name, diff, replacementReasons: [], externalId };
  return { action: 'create', kind: d.kind, namespace: d.namespace, name: d.name, diff, replacementReasons: [] };
}

function planDelete(r: PlanRecorded): PlannedChange {
  const diff = diffResource(r.kind, r, null);
  return { action: 'delete', kind: r.kind, namespace: r.namespace, name: r.name, uid: r.uid, diff, replacementReasons: [] };
}

function planAgainstRecorded(d: PlanDesired, r: PlanRecorded): PlannedChange {
  const diff = diffResource(d.kind, r, d);
  const replacementReasons = diff.length === 0 ? [] : replacementReasonsOf(d.kind, diff);
  const importing = importedExternalId(d);
  if (importing !== undefined && r.externalId === null && importing !== importedExternalId(r)) {
    // The annotation was just put on a resource cairn has not created yet: it adopts, never creates.
    return { action: 'import', kind: d.kind, namespace: d.namespace, name: d.name, uid: r.uid, diff, replacementReasons, externalId: importing };
  }
  const action: PlanAction = replacementReasons.length > 0 ? 'replace' : diff.length > 0 ? 'update' : 'noop';
  return { action, kind: d.kind, namespace: d.namespace, name: d.name, uid: r.uid, diff, replacementReasons };
}

function replacementReasonsOf(kind: Kind, diff: readonly FieldDiff[]): string[] {
  const reasons: string[] = [];
  for (const change of diff) {
    if (!change.forcesReplacement) continue;
    const field = change.path.split(/[.[]/)[1] ?? change.path;
    const reason = `spec.${field}: changing the ${field} replaces the ${kind.toLowerCase()}`;
    if (!reasons.includes(reason)) reasons.push(reason);
  }
  return reasons;
}

function scopeFilter(scope: PlanScope | undefined): (r: PlanDesired) => boolean {
  const kinds = scope?.kinds === undefined ? null : new Set<Kind>(scope.kinds);
  const namespaces = scope?.namespaces === undefined ? null : new Set(scope.namespaces);
  return (r) => (kinds === null || kinds.has(r.kind)) && (namespaces === null || namespaces.has(r.namespace));
}

function summarize(changes: readonly PlannedChange[]): PlanSummary {
  const summary: PlanSummary = { create: 0, import: 0, update: 0, replace: 0, delete: 0, noop: 0 };
  for (const change of changes) summary[change.action] += 1;
  return summary;
}

/** Buckets by execution rank, then sorts each bucket by namespace and name. */
function inExecutionOrder(changes: readonly PlannedChange[]): PlannedChange[] {
  const buckets: PlannedChange[][] = Array.from({ length: 2 * KINDS.length }, () => []);
  for (const change of changes) buckets[executionRank(change)]?.push(change);
  return buckets.flatMap((bucket) => bucket.sort(compareNamespaceAndName));
}

/** Non-deletes in kind order (Provider 0 … App 3), then deletes in reverse kind order (App 4 … Provider 7). */
function executionRank(change: PlannedChange): number {
  const rank = kindRank(change.kind);
  return change.action === 'delete' ? 2 * KINDS.length - 1 - rank : rank;
}

function compareNamespaceAndName(a: PlannedChange, b: PlannedChange): number {
  return compareText(a.namespace, b.namespace) || compareText(a.name, b.name);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
