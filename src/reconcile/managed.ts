/**
 * @module The managed-resource reconciler shared by servers, databases and apps (after
 * crossplane-runtime's managed.Reconciler): observe through the driver, then take at most the
 * next step — create (recording a pending create with its idempotency key first), replace,
 * update, wait for the vendor — and record status. Deletion observes and deletes until the
 * vendor no longer has it. Each kind supplies an adapter with what differs.
 */
import type { ExternalClient } from '../drivers/contract.js';
import { IdempotencyKeySpentError } from '../drivers/errors.js';
import { REPLACEMENT_FIELDS, type Kind, type SpecByKind } from '../model/kinds.js';
import { CREATED_BY_CAIRN_ANNOTATION, effectiveDeletionPolicy, IMPORTED_DETAIL, importedExternalId, keyIdentity, selfHeals, type AnyStoredResource, type ResourceStatus, type StoredResource } from '../model/resource.js';
import type { ReconcileContext, ReconcileResult } from './context.js';
import { requireNoDependents } from './dependencies.js';
import { doing, StallError } from './errors.js';
import { idempotencyKey } from './idempotency.js';
import { StatusDraft } from './status-draft.js';

export const REASON_CREATING = 'Creating';
export const REASON_CREATED = 'Created';
export const REASON_ADOPTED = 'Adopted';
export const REASON_IMPORTED = 'Imported';
export const REASON_IMPORT_FAILED = 'ImportFailed';
export const REASON_UPDATED = 'Updated';
export const REASON_REPLACING = 'Replacing';
export const REASON_DELETING = 'Deleting';
export const REASON_DELETED = 'Deleted';
export const REASON_ORPHANED = 'Orphaned';
export const REASON_DRIFT = 'DriftDetected';
export const REASON_NEW_INCARNATION = 'NewIncarnation';
export const REASON_AVAILABLE = 'Available';
export const REASON_VENDOR_FAILED = 'VendorFailed';

/** Where the resource lives: the client to reach it and a name for the vendor in messages. */
export interface Connection<D, O> {
  client: ExternalClient<D, O>;
  vendor: string;
}

export interface Progress {
  phase: string;
  /** False while the vendor is still working on it (provisioning, deploying, ...). */
  settled: boolean;
  /** The vendor reports it broken. */
  failed?: string;
  /** What the Ready condition says once settled (default: `<kind> is <phase>`). */
  message?: string;
}

/** What a further step did once the resource is in sync with its spec (an action, a backup, ...). */
export interface StepResult {
  /** What it did or waits for: the Ready condition's message. */
  message: string;
  /** The resource stays usable meanwhile (a backup is running), so Ready stays True. */
  usable?: boolean;
  /** Look again after this long (default: the poll interval). */
  requeueAfterMs?: number;
  /** Drift found and left alone (self-heal is off): reported in the Synced condition. */
  driftReported?: string;
}

export interface ManagedAdapter<K extends Kind, D, O extends { id: string }> {
  kind: K;
  creatingPhase: string;
  deletingPhase: string;
  /** Resolves what it depends on (throwing waits) and connects to where `spec` places it. */
  connect(ctx: ReconcileContext, r: StoredResource<K>, spec: SpecByKind[K], purpose: 'converge' | 'delete'): Promise<Connection<D, O>>;
  desired(ctx: ReconcileContext, r: StoredResource<K>): Promise<D>;
  /** What differs between desired and observed that `update` fixes, as `field: before → after`. */
  drift(ctx: ReconcileContext, r: StoredResource<K>, desired: D, observed: O, draft: StatusDraft): string[];
  /**
   * A change the user asked for through cairn without a new generation (an app's requested
   * deployment): not drift (`drift` leaves it out), recorded with its own reason, and made even
   * when self-heal is off. Null when nothing was asked for.
   */
  requested?(ctx: ReconcileContext, r: StoredResource<K>, desired: D, observed: O): { reason: string; message: string } | null;
  progress(r: StoredResource<K>, observed: O): Progress;
  endpoints(observed: O): Record<string, string | number | null>;
  details(observed: O): Record<string, unknown>;
  /** Differences `drift` does not cover that `afterSync` puts back (a server's power), as `field: before → after`. */
  observedDrift?(r: StoredResource<K>, observed: O): string[];
  /** The next step once in sync (power, an action, a backup); null when nothing is left to do. */
  afterSync?(ctx: ReconcileContext, r: StoredResource<K>, observed: O, draft: StatusDraft): Promise<StepResult | null>;
  /** When to look again at the latest once converged (e.g. the next scheduled backup), in ms from now. */
  nextCheckMs?(ctx: ReconcileContext, r: StoredResource<K>): number | undefined;
  /** Follows what the vendor did since the last look, whatever its state (e.g. ends an app's deployment). */
  track?(ctx: ReconcileContext, r: StoredResource<K>, observed: O, draft: StatusDraft): Promise<void>;
  /**
   * Just before a create or update reaches the vendor: records what must be recorded first (a
   * database's password, the deployment an app's rollout belongs to) and returns what to send.
   */
  beforeApply?(ctx: ReconcileContext, r: StoredResource<K>, desired: D, draft: StatusDraft, operation: 'create' | 'update'): D;
  /** Called when a create or update failed, before the error is classified (e.g. to fail an app's deployment). */
  applyFailed?(ctx: ReconcileContext, r: StoredResource<K>, draft: StatusDraft, error: unknown): void;
  /** Called after a successful create or update with what the vendor returned. */
  recordApplied?(ctx: ReconcileContext, r: StoredResource<K>, draft: StatusDraft, desired: D, observed: O): void;
  /** The vendor's resource is gone and the next create starts a new incarnation: drop what belonged to the old one. */
  onGone?(ctx: ReconcileContext, r: StoredResource<K>): void;
  /** True when deleting the resource must leave the vendor's side in place. */
  orphanOnDelete?(r: StoredResource<K>): boolean;
  /**
   * The kind can adopt an existing vendor resource (`cairn.dev/external-id`): what differs between
   * the manifest and the vendor's resource that cannot change in place, as `spec.field: ...`
   * (an import never replaces). Absent: the kind cannot be imported.
   */
  importConflicts?(ctx: ReconcileContext, r: StoredResource<K>, desired: D, observed: O): string[];
  /** A step before the vendor's resource is deleted (e.g. a final backup); null once it may go. */
  beforeDelete?(ctx: ReconcileContext, r: StoredResource<K>, observed: O, draft: StatusDraft): Promise<StepResult | null>;
  /** The resource is about to leave cairn for good: drop what cairn kept for it (passwords, unfinished records). */
  onRemoved?(ctx: ReconcileContext, r: StoredResource<K>): void;
}

/**
 * What differs at the vendor from what cairn last converged, looked at without changing anything
 * (`cairn plan --refresh`): the vendor's resource gone, or fields changed behind cairn's back.
 */
export async function observeManagedDrift<K extends Kind, D, O extends { id: string }>(
  ctx: ReconcileContext,
  r: StoredResource<K>,
  adapter: ManagedAdapter<K, D, O>,
): Promise<string[]> {
  const externalId = r.status.externalId;
  if (r.deletionTimestamp !== null || !externalId) return [];
  const conn = await adapter.connect(ctx, r, r.spec, 'delete');
  const key = idempotencyKey(keyIdentity(r), r.status.incarnation ?? 0);
  const observed = await doing('observe', () => conn.client.observe({ key, externalId }));
  if (observed === null) return [`${r.kind} ${externalId} no longer exists at ${conn.vendor}`];
  const desired = await adapter.desired(ctx, r);
  return [...adapter.drift(ctx, r, desired, observed, new StatusDraft(r as unknown as AnyStoredResource)), ...(adapter.observedDrift?.(r, observed) ?? [])];
}

export async function reconcileManaged<K extends Kind, D, O extends { id: string }>(
  ctx: ReconcileContext,
  r: StoredResource<K>,
  draft: StatusDraft,
  adapter: ManagedAdapter<K, D, O>,
): Promise<ReconcileResult> {
  if (r.deletionTimestamp !== null) return deleteManaged(ctx, r, draft, adapter);

  const status = draft.status;
  const applied = (status.appliedSpec ?? null) as SpecByKind[K] | null;
  const replacing = applied !== null ? replacementReasons(r.kind, applied, r.spec) : [];
  const conn = await adapter.connect(ctx, r, replacing.length > 0 && applied ? applied : r.spec, 'converge');
  const key = idempotencyKey(keyIdentity(r), status.incarnation ?? 0);
  const pending = ctx.store.operations.get(r.uid, 'create');

  // Never created and no create in flight: nothing can exist at the vendor yet, so skip observe.
  let observed: O | null = null;
  let imported = false;
  const importing = importTarget(r, status);
  if (importing !== undefined) {
    observed = await importExisting(ctx, r, draft, adapter, conn, pending?.idempotencyKey ?? key, importing, pending !== undefined);
    imported = observed.id === importing;
  } else if (status.externalId || pending) {
    observed = await doing('observe', () => conn.client.observe({ key: pending?.idempotencyKey ?? key, externalId: status.externalId ?? null }));
  }

  if (observed === null) {
    if (replacing.length > 0) {
      // The old one is gone, as the replacement asked (or its create never landed there): a planned
      // step, not drift. The next pass creates the replacement under a new idempotency key.
      const old = status.externalId ? `${r.kind.toLowerCase()} ${status.externalId}` : `the ${r.kind.toLowerCase()} being created`;
      ctx.record(r, 'Normal', REASON_REPLACING, `${old} is gone from ${conn.vendor}; creating its replacement (${replacing.join('; ')})`);
      if (pending) ctx.store.operations.finish(r.uid, 'create');
      forgetIncarnation(ctx, r, status, adapter);
      return { requeueAfterMs: 0 };
    }
    if (status.externalId) {
      ctx.record(r, 'Warning', REASON_DRIFT, `${r.kind} ${status.externalId} no longer exists at ${conn.vendor}; creating it again`);
      forgetIncarnation(ctx, r, status, adapter);
      return { requeueAfterMs: 0 };
    }
    const desired = await adapter.desired(ctx, r);
    const createKey = pending?.idempotencyKey ?? key;
    ctx.store.operations.begin(r.uid, 'create', createKey);
    // Where it is being created, from now on: a change of provider, region or server before it is
    // ready replaces it there (deleting what was, or is being, created) instead of leaking it.
    status.appliedSpec = structuredClone(r.spec) as unknown as Record<string, unknown>;
    draft.setPhase(adapter.creatingPhase);
    const sent = adapter.beforeApply?.(ctx, r, desired, draft, 'create') ?? desired;
    let created: O;
    try {
      created = await applying(ctx, r, draft, adapter, doing('create', () => conn.client.create(createKey, sent)));
    } catch (error) {
      if (!(error instanceof IdempotencyKeySpentError)) throw error;
      // What this key made was deleted since (a delete that ran between a lost create answer and
      // the resource being declared again): nothing exists, so the next pass creates a new
      // incarnation under a new key (a crash before then sends this key again, and is answered so again).
      ctx.record(r, 'Normal', REASON_NEW_INCARNATION, `${error.message}; creating it again under a new idempotency key`);
      ctx.store.operations.finish(r.uid, 'create');
      forgetIncarnation(ctx, r, status, adapter);
      return { requeueAfterMs: 0 };
    }
    status.externalId = created.id;
    // The pending create ends with the status write that records this id (Resources.writeStatus):
    // a crash before it must still find the resource by its key, or a delete would drop the row
    // and leak it at the vendor.
    ctx.record(r, 'Normal', REASON_CREATED, `created ${r.kind.toLowerCase()} ${created.id} at ${conn.vendor}`);
    adapter.recordApplied?.(ctx, r, draft, sent, created);
    return settle(ctx, r, draft, adapter, created);
  }

  if (status.externalId !== observed.id) {
    if (pending) ctx.record(r, 'Normal', REASON_ADOPTED, `found ${r.kind.toLowerCase()} ${observed.id} at ${conn.vendor} by its idempotency key after an interrupted create`);
    status.externalId = observed.id;
  }
  // The pending create ends with the status write that records this id, in one transaction
  // (Resources.writeStatus): finishing it here, apart, lost the server when the process died in
  // between or the status write lost a race (found by the Hetzner crash test, seed 3).

  if (replacing.length > 0) {
    draft.setPhase(adapter.deletingPhase);
    draft.markProgressing(REASON_REPLACING, `replacing: ${replacing.join('; ')}`);
    ctx.record(r, 'Normal', REASON_REPLACING, `deleting ${observed.id} to replace it (${replacing.join('; ')})`);
    await doing('delete for replacement', () => conn.client.delete(observed.id));
    return { requeueAfterMs: ctx.pollMs };
  }

  const desired = await adapter.desired(ctx, r);
  const changes = adapter.drift(ctx, r, desired, observed, draft);
  const request = adapter.requested?.(ctx, r, desired, observed) ?? null;
  if (changes.length > 0 || request !== null) {
    const selfHeal = selfHeals(r);
    const userChange = status.observedGeneration !== r.generation || request !== null || imported;
    if (!selfHeal && !userChange) {
      draft.setCondition('Synced', 'False', REASON_DRIFT, `changed outside cairn: ${changes.join('; ')} (self-heal is off)`);
      return { requeueAfterMs: ctx.resyncMs(r.kind) };
    }
    if (request) ctx.record(r, 'Normal', request.reason, request.message);
    else if (!userChange) ctx.record(r, 'Warning', REASON_DRIFT, `changed outside cairn: ${changes.join('; ')}; putting it back`);
    const sent = adapter.beforeApply?.(ctx, r, desired, draft, 'update') ?? desired;
    const updated = await applying(ctx, r, draft, adapter, doing('update', () => conn.client.update(observed.id, sent)));
    ctx.record(r, 'Normal', REASON_UPDATED, [...(request ? [request.message] : []), ...changes].join('; '));
    adapter.recordApplied?.(ctx, r, draft, sent, updated);
    return settle(ctx, r, draft, adapter, updated);
  }
  return settle(ctx, r, draft, adapter, observed);
}

/** The vendor's resource is gone: the next create is a new incarnation, under a new idempotency key. */
function forgetIncarnation<K extends Kind, D, O extends { id: string }>(ctx: ReconcileContext, r: StoredResource<K>, status: ResourceStatus, adapter: ManagedAdapter<K, D, O>): void {
  // What cairn creates next is its own, not an imported one; a cairn.dev/external-id still naming
  // the one gone must not be imported again.
  // (false rather than absent, so that the merge patch of a custom resource's status carries it).
  const details = { ...status.details, ...(status.details?.[IMPORTED_DETAIL] === undefined ? {} : { [IMPORTED_DETAIL]: false }) };
  status.details = status.externalId ? { ...details, [GONE_EXTERNAL_ID_DETAIL]: status.externalId } : details;
  status.incarnation = (status.incarnation ?? 0) + 1;
  status.externalId = null;
  status.appliedSpec = null;
  adapter.onGone?.(ctx, r);
}

/** `status.details.goneExternalId`: the vendor id of the incarnation cairn last saw go (replaced, or vanished). */
const GONE_EXTERNAL_ID_DETAIL = 'goneExternalId';


/**
 * The vendor id to adopt, when there is one to adopt now: the resource names one with
 * `cairn.dev/external-id`, cairn holds no id for it, and it is not the
 * id of an incarnation cairn saw go (after a replacement, or a resource that vanished, the
 * annotation may still name it until written back; cairn creates the next one itself).
 */
function importTarget(r: StoredResource, status: ResourceStatus): string | undefined {
  if (status.externalId) return undefined;
  const id = importedExternalId(r);
  return id === undefined || status.details?.[GONE_EXTERNAL_ID_DETAIL] === id ? undefined : id;
}

/** The `cairn.dev/external-id` of a resource whose id cairn itself created and wrote back (controller mode), when it is still the one to look at. */
function ownRecordedId(r: StoredResource, status: ResourceStatus): string | undefined {
  const id = importTarget(r, status);
  return id !== undefined && r.annotations[CREATED_BY_CAIRN_ANNOTATION] === id ? id : undefined;
}

/**
 * Observes the vendor's resource by the id the user gave and adopts it: its id is recorded, and
 * the manifest's spec becomes the applied one (what cannot change in place was checked equal), so
 * the usual diff then brings the in-place fields to the manifest. Missing, or differing in a field
 * that would need a replacement: a stall that says so; an import never creates or replaces.
 */
async function importExisting<K extends Kind, D, O extends { id: string }>(
  ctx: ReconcileContext,
  r: StoredResource<K>,
  draft: StatusDraft,
  adapter: ManagedAdapter<K, D, O>,
  conn: Connection<D, O>,
  key: string,
  externalId: string,
  createPending: boolean,
): Promise<O> {
  const what = r.kind.toLowerCase();
  if (!adapter.importConflicts) {
    throw new StallError(REASON_IMPORT_FAILED, `a ${what} cannot be imported (cairn.dev/external-id ${externalId}); remove the annotation to let cairn create it`);
  }
  const found = await doing('observe for import', () => conn.client.observe({ key, externalId }));
  // A create cairn began before the annotation came landed after all: that one is this resource's.
  if (found !== null && found.id !== externalId && createPending) return found;
  if (found === null || found.id !== externalId) {
    throw new StallError(REASON_IMPORT_FAILED, `no ${what} with id ${externalId} at ${conn.vendor} (cairn.dev/external-id); nothing was created`);
  }
  const desired = await adapter.desired(ctx, r);
  const conflicts = adapter.importConflicts(ctx, r, desired, found);
  if (conflicts.length > 0) {
    throw new StallError(
      REASON_IMPORT_FAILED,
      `cannot import ${what} ${externalId} from ${conn.vendor}: ${conflicts.join('; ')}, which cannot change in place; make the manifest match the vendor (an import never replaces)`,
    );
  }
  const status = draft.status;
  status.externalId = found.id;
  status.appliedSpec = structuredClone(r.spec) as unknown as Record<string, unknown>;
  const ownRecord = r.annotations[CREATED_BY_CAIRN_ANNOTATION] === externalId;
  if (ownRecord) {
    ctx.record(r, 'Normal', REASON_ADOPTED, `found ${what} ${found.id} at ${conn.vendor} by its recorded cairn.dev/external-id; adopted again`);
  } else {
    status.details = { ...status.details, [IMPORTED_DETAIL]: true };
    const policy = effectiveDeletionPolicy({ spec: r.spec, status });
    ctx.record(r, 'Normal', REASON_IMPORTED, `imported ${what} ${found.id} from ${conn.vendor} (deletionPolicy: ${policy})`);
  }
  return found;
}

/** Awaits a create or update, telling the adapter when it failed. */
async function applying<K extends Kind, D, O extends { id: string }>(
  ctx: ReconcileContext,
  r: StoredResource<K>,
  draft: StatusDraft,
  adapter: ManagedAdapter<K, D, O>,
  call: Promise<O>,
): Promise<O> {
  try {
    return await call;
  } catch (error) {
    adapter.applyFailed?.(ctx, r, draft, error);
    throw error;
  }
}

async function settle<K extends Kind, D, O extends { id: string }>(
  ctx: ReconcileContext,
  r: StoredResource<K>,
  draft: StatusDraft,
  adapter: ManagedAdapter<K, D, O>,
  observed: O,
): Promise<ReconcileResult> {
  await adapter.track?.(ctx, r, observed, draft);
  const progress = adapter.progress(r, observed);
  draft.setPhase(progress.phase);
  draft.status.endpoints = adapter.endpoints(observed);
  draft.status.details = { ...draft.status.details, ...adapter.details(observed) };
  if (progress.failed) {
    draft.setCondition('Ready', 'False', REASON_VENDOR_FAILED, progress.failed);
    draft.setCondition('Synced', 'True', 'ReconcileSuccess', '');
    return { requeueAfterMs: ctx.resyncMs(r.kind) };
  }
  if (!progress.settled) {
    draft.markProgressing(capitalise(progress.phase), `${r.kind.toLowerCase()} is ${progress.phase} at the vendor`);
    return { requeueAfterMs: ctx.pollMs };
  }
  const step = adapter.afterSync ? await adapter.afterSync(ctx, r, observed, draft) : null;
  if (step !== null) {
    if (step.usable) draft.markReady(capitalise(draft.status.phase), step.message);
    else draft.markProgressing(capitalise(draft.status.phase), step.message);
    if (step.driftReported !== undefined) {
      draft.setCondition('Synced', 'False', REASON_DRIFT, step.driftReported);
      return { requeueAfterMs: ctx.resyncMs(r.kind) };
    }
    return { requeueAfterMs: step.requeueAfterMs ?? ctx.pollMs };
  }
  draft.markReady(REASON_AVAILABLE, progress.message ?? `${r.kind.toLowerCase()} is ${progress.phase}`);
  return { requeueAfterMs: Math.min(ctx.resyncMs(r.kind), adapter.nextCheckMs?.(ctx, r) ?? Number.POSITIVE_INFINITY) };
}

async function deleteManaged<K extends Kind, D, O extends { id: string }>(
  ctx: ReconcileContext,
  r: StoredResource<K>,
  draft: StatusDraft,
  adapter: ManagedAdapter<K, D, O>,
): Promise<ReconcileResult> {
  requireNoDependents(ctx, r);
  const status = draft.status;
  const pending = ctx.store.operations.get(r.uid, 'create');
  if (adapter.orphanOnDelete?.(r)) {
    ctx.record(r, 'Normal', REASON_ORPHANED, `removed from cairn; ${status.externalId ?? 'the vendor resource'} is left in place (deletionPolicy: Orphan)`);
    return removeResource(ctx, r, adapter);
  }
  // A record cairn lost (controller mode, an empty data dir) still names what cairn made: delete that.
  const ownRecord = status.externalId || pending ? undefined : ownRecordedId(r, status);
  if (!status.externalId && !pending && ownRecord === undefined) return removeResource(ctx, r, adapter);

  const spec = (status.appliedSpec ?? r.spec) as SpecByKind[K];
  const conn = await adapter.connect(ctx, r, spec, 'delete');
  const key = idempotencyKey(keyIdentity(r), status.incarnation ?? 0);
  const observed = await doing('observe', () => conn.client.observe({ key: pending?.idempotencyKey ?? key, externalId: status.externalId ?? ownRecord ?? null }));
  if (observed === null) {
    const what = status.externalId ? `${r.kind.toLowerCase()} ${status.externalId}` : r.kind.toLowerCase();
    ctx.record(r, 'Normal', REASON_DELETED, `deleted ${what} at ${conn.vendor}`);
    return removeResource(ctx, r, adapter);
  }
  const before = adapter.beforeDelete ? await adapter.beforeDelete(ctx, r, observed, draft) : null;
  if (before !== null) {
    draft.setPhase(adapter.deletingPhase);
    draft.markProgressing(REASON_DELETING, before.message);
    return { requeueAfterMs: before.requeueAfterMs ?? ctx.pollMs };
  }
  if (draft.status.phase !== adapter.deletingPhase) {
    ctx.record(r, 'Normal', REASON_DELETING, `deleting ${r.kind.toLowerCase()} ${observed.id} at ${conn.vendor}`);
  }
  draft.setPhase(adapter.deletingPhase);
  draft.markProgressing(REASON_DELETING, `deleting ${observed.id} at ${conn.vendor}`);
  await doing('delete', () => conn.client.delete(observed.id));
  return { requeueAfterMs: Math.min(ctx.pollMs, 250) };
}

/** Sentinel result: the resource row is gone; nothing to write. */
export const REMOVED: ReconcileResult = Object.freeze({});

function removeResource<K extends Kind, D, O extends { id: string }>(
  ctx: ReconcileContext,
  r: StoredResource<K>,
  adapter: ManagedAdapter<K, D, O>,
): ReconcileResult {
  const removed = ctx.store.transaction(() => {
    if (!ctx.store.resources.removeDeleted(r.uid, r.generation)) return false;
    adapter.onRemoved?.(ctx, r);
    return true;
  });
  // Declared again while its deletion ran: kept, and made again on the next pass.
  if (!removed) return { requeueAfterMs: 0 };
  ctx.wakeWaiting(); // e.g. the server that waited for this database to go
  return REMOVED;
}

/** `spec.region: changing the region replaces the server`-style reasons for fields that differ. */
export function replacementReasons(kind: Kind, before: object, after: object): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  return REPLACEMENT_FIELDS[kind]
    .filter((field) => JSON.stringify(a[field] ?? null) !== JSON.stringify(b[field] ?? null))
    .map((field) => `spec.${field}: ${JSON.stringify(a[field] ?? null)} → ${JSON.stringify(b[field] ?? null)}`);
}

function capitalise(text: string): string {
  return text.replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase());
}
