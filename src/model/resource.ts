/**
 * @module The shape of a resource: a manifest (desired state as the user wrote it), its status
 * (recorded state, written only by the reconciler), and the stored record that joins both with
 * cairn's bookkeeping (uid, generation, resourceVersion, owning source).
 */
import type { ObjectMeta } from './generated/kinds.js';
import type { Kind, SpecByKind } from './kinds.js';

export type { ObjectMeta };

/** Desired state as written in YAML, posted to the API, or applied as a custom resource. */
export interface Manifest<K extends Kind = Kind> {
  apiVersion: 'cairn.dev/v1';
  kind: K;
  metadata: ObjectMeta;
  spec: SpecByKind[K];
}

/** Any kind's manifest, discriminated by `kind`. */
export type AnyManifest = { [K in Kind]: Manifest<K> }[Kind];

export type ConditionType = 'Ready' | 'Synced';
export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: ConditionType;
  status: ConditionStatus;
  /** CamelCase machine-readable reason, e.g. `Available`, `WaitingForDependency`, `ProviderError`. */
  reason: string;
  message: string;
  /** RFC 3339 UTC. */
  lastTransitionTime: string;
  observedGeneration: number;
}

/** Recorded state. Written only by the reconciler. */
export interface ResourceStatus {
  phase: string;
  conditions: Condition[];
  observedGeneration: number;
  /** The vendor's id of the thing this resource stands for, once known. */
  externalId?: string | null;
  /** Addresses: ipv4/ipv6 for servers, host/port for databases, url for apps. */
  endpoints?: Record<string, string | number | null>;
  /** The spec the world was last converged to (what `update`/`replace` diffs against). */
  appliedSpec?: Record<string, unknown> | null;
  /** Which incarnation's idempotency key the next create uses; bumped on each replacement. */
  incarnation?: number;
  /** Extra, kind-specific facts shown to users (power state, engine version, ...). */
  details?: Record<string, unknown>;
}

/** Who may change a resource: `api`, `git:<source id>`, `kubernetes`, or `cli`. */
export type SourceOwner = string;

/** A resource as the store holds it. */
export interface StoredResource<K extends Kind = Kind> {
  uid: string;
  tenant: string;
  kind: K;
  namespace: string;
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  spec: SpecByKind[K];
  generation: number;
  /** The store revision of the last write of any kind, status included. */
  resourceVersion: number;
  /** The store revision of the last change to desired state (spec, labels, annotations, deletion): the API's ETag. */
  specVersion: number;
  /**
   * The version of `status`, bumped by each status write (0 before the first): a status writer
   * passes the version it read to `Resources.writeStatus`, which refuses the write when another
   * writer came first.
   */
  statusVersion: number;
  source: SourceOwner;
  createdAt: string;
  updatedAt: string;
  /** Set when deletion was requested; the row goes once the vendor's resource is gone. */
  deletionTimestamp: string | null;
  status: ResourceStatus;
}

export type AnyStoredResource = { [K in Kind]: StoredResource<K> }[Kind];

/** `Kind/namespace/name`, the identity of a resource within a tenant. */
export function resourceKey(r: { kind: Kind; namespace?: string; name: string }): string {
  return `${r.kind}/${r.namespace ?? 'default'}/${r.name}`;
}

/** `Kind/name` in the default namespace, `Kind/namespace/name` elsewhere: how messages name a resource. */
export function displayName(r: { kind: Kind; namespace?: string; name: string }): string {
  const ns = r.namespace ?? 'default';
  return ns === 'default' ? `${r.kind}/${r.name}` : `${r.kind}/${ns}/${r.name}`;
}

/** The annotation a source stamps on each resource: the revision (commit) that last set it. */
export const REVISION_ANNOTATION = 'cairn.dev/revision';

/** The annotation that, set to "false", turns drift correction into a report. */
const SELF_HEAL_ANNOTATION = 'cairn.dev/self-heal';

/** Whether cairn puts back what changed at the vendor behind its back (the default), or only reports it. */
export function selfHeals(r: { annotations: Readonly<Record<string, string>> }): boolean {
  return r.annotations[SELF_HEAL_ANNOTATION] !== 'false';
}

/**
 * The vendor's id of an existing resource to adopt instead of creating one (set by a user, or by
 * `cairn import`); in Kubernetes controller mode cairn also writes it back on each custom resource
 * once it knows the id, so that a replica that lost its data dir adopts rather than creates again.
 */
export const EXTERNAL_ID_ANNOTATION = 'cairn.dev/external-id';

/** The vendor id a resource's `cairn.dev/external-id` annotation names, if any (blank counts as none). */
export function importedExternalId(r: { annotations: Readonly<Record<string, string>> }): string | undefined {
  const id = r.annotations[EXTERNAL_ID_ANNOTATION]?.trim();
  return id === undefined || id === '' ? undefined : id;
}

/**
 * Annotation (internal, set by controller mode only) saying the `cairn.dev/external-id` on this
 * resource is one cairn itself created and wrote back, so adopting it again (a replica that lost its
 * data dir) is not an import: its deletionPolicy stays Delete.
 */
export const CREATED_BY_CAIRN_ANNOTATION = 'cairn.dev/external-id-created-by-cairn';

/**
 * Annotation (internal, set by controller mode) holding the identity a resource's vendor
 * idempotency keys derive from instead of cairn's own uid: the custom resource's uid, which
 * outlives the data dir, so a replica that lost its record and retries a create gets the first one back.
 */
export const KEY_IDENTITY_ANNOTATION = 'cairn.dev/key-identity';

/** What a resource's idempotency keys derive from: its KEY_IDENTITY_ANNOTATION, else its uid. */
export function keyIdentity(r: { uid: string; annotations: Readonly<Record<string, string>> }): string {
  return r.annotations[KEY_IDENTITY_ANNOTATION] || r.uid;
}

/** `status.details.imported`: true once cairn adopted the vendor's resource by `cairn.dev/external-id` rather than creating it. */
export const IMPORTED_DETAIL = 'imported';

/** Whether the resource stands for a vendor resource cairn adopted (imported) rather than created. */
export function isImported(r: { status: ResourceStatus }): boolean {
  return r.status.details?.[IMPORTED_DETAIL] === true;
}

/**
 * What deleting the resource does at the vendor: its spec's `deletionPolicy` when set; else
 * Orphan for an imported one (cairn did not make it, so it does not unmake it) and Delete otherwise.
 */
export function effectiveDeletionPolicy(r: { spec: object; status: ResourceStatus }): 'Delete' | 'Orphan' {
  const stated = (r.spec as { deletionPolicy?: unknown }).deletionPolicy;
  if (stated === 'Delete' || stated === 'Orphan') return stated;
  return isImported(r) ? 'Orphan' : 'Delete';
}

export const DEFAULT_NAMESPACE = 'default';
export const DEFAULT_TENANT = 'default';

/** What names one stored resource: enough for events, messages and lookups. */
export interface ResourceIdentity {
  uid: string;
  tenant: string;
  kind: Kind;
  namespace: string;
  name: string;
}

/** A stored resource of any of the kinds in K (distributes over a union of kinds). */
export type StoredResourceOf<K extends Kind> = { [P in K]: StoredResource<P> }[K];
