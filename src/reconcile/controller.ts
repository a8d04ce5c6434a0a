/**
 * @module The reconcile loop: holds the data dir's lease, follows the store's change feed,
 * queues resources whose desired state changed, and runs reconciles on a pool of workers with
 * caps per kind and per provider. Failures are retried with per-item backoff; converged
 * resources are looked at again on a jittered resync interval (drift checks). Sharded (several
 * replicas on one store), it holds leases on its share of the uid shards instead (shard-ownership.ts)
 * and reconciles only their resources, each behind its shard's fence (fenced-store.ts).
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type { Kind } from '../model/kinds.js';
import type { AnyStoredResource } from '../model/resource.js';
import type { Store } from '../store/store.js';
import type { LeaseHolder } from '../store/lease.js';
import { FencedWriteError, type HeldShard } from '../store/shard-leases.js';
import type { CallDeadlines } from './call-deadlines.js';
import type { ReconcileContext } from './context.js';
import { type DriverPool, driverPoolFor } from './driver-pool.js';
import { dependencyKey } from './dependencies.js';
import { SHARD_LEASE_TTL_MS, ShardOwnership } from './shard-ownership.js';
import { defaultControllerRateLimiter } from './rate-limiter.js';
import { REASON_CANCELLED, reconcileResource, type ReconcileOutcome } from './reconcile-resource.js';
import { KeyedSlots, type Slots } from './semaphore.js';
import { WorkQueue } from './work-queue.js';

export const LEASE_NAME = 'reconciler';

export interface ControllerOptions {
  dataDir: string;
  /** Reconciles running at once, in all. */
  workers?: number;
  perKind?: number;
  perProvider?: number;
  pollMs?: number;
  resyncMs?: Partial<Record<Kind, number>>;
  /** The cap on one HTTP request to a vendor. */
  requestTimeoutMs?: number;
  /** How long each type of driver call may take before it is abandoned and retried (call-deadlines.ts). */
  deadlines?: Partial<CallDeadlines>;
  leaseTtlMs?: number;
  /** How often the change feed is read. */
  feedIntervalMs?: number;
  /** The time reconcilers go by (backup schedules); tests set it. Default: the system clock. */
  clock?: () => Date;
  /** Told about each reconcile (for metrics and logs). */
  onReconciled?: (resource: AnyStoredResource, outcome: ReconcileOutcome, durationMs: number) => void;
  /** Told when the lease is lost to another process: reconciling has stopped. */
  onLeaseLost?: () => void;
  /**
   * Share reconciling with other replicas on the same store: hold leases on a fair share of the
   * uid shards (no LeaseHeldError), reconcile only their resources, and fence every write.
   */
  sharded?: boolean;
  /** Sharded: told when a reconcile's write was refused because its shard's lease was lost (the shard is dropped). */
  onFenced?: (resource: AnyStoredResource, error: FencedWriteError) => void;
  /** Sharded: told when a lease pass could not be made (the database was busy, say); the next pass tries again. */
  onLeaseError?: (error: unknown) => void;
  /**
   * Group the loop's writes into one commit every few milliseconds (default true; commit-group.ts).
   * Off for several controllers in one process on one database: one's open group would make the
   * others' writes wait on a lock only the blocked thread could release.
   */
  groupCommits?: boolean;
}

export class LeaseHeldError extends Error {
  override readonly name = 'LeaseHeldError';
  constructor(readonly holder: LeaseHolder) {
    super(`another cairn process (pid ${holder.pid} on ${holder.host}, since ${holder.acquiredAt}) is reconciling this data dir`);
  }
}

const DEFAULT_RESYNC_MS = 10 * 60_000;

/** How soon a stalled resource is first looked at again (then with backoff, capped by the resync interval). */
const STALL_FIRST_RETRY_MS = 1_000;

export class Controller {
  readonly holderId = `${hostname()}:${process.pid}:${randomUUID()}`;
  private readonly queue = new WorkQueue<string>(defaultControllerRateLimiter<string>());
  private readonly drivers: DriverPool;
  /** Aborted by stop(): cancels every driver call in flight (each also has its own deadline). */
  private readonly stopping = new AbortController();
  private readonly perKind: KeyedSlots;
  private readonly perProvider: KeyedSlots;
  /** Per resource, what the feed last saw of what makes it worth a reconcile. */
  private readonly seen = new Map<string, { generation: number; deleting: boolean; annotations: string; wakes: number }>();
  /** Resources whose last reconcile waited for something other than one named resource (dependents to go, a password). */
  private readonly waiting = new Set<string>();
  /** Resources whose last reconcile waited for one resource to be Ready, by that resource's dependencyKey. */
  private readonly waitingOn = new Map<string, Set<string>>();
  /** The dependencyKey each resource of `waitingOn` waits for. */
  private readonly waitsFor = new Map<string, string>();
  private readonly context: ReconcileContext;
  private readonly workerLoops: Promise<void>[] = [];
  /** Kinds of the resources queued at the last `queueDepthByKind` (a uid's kind never changes). */
  private queuedKinds = new Map<string, Kind>();
  private revision = 0;
  private feedTimer: NodeJS.Timeout | undefined;
  private leaseTimer: NodeJS.Timeout | undefined;
  private running = false;
  /** Sharded: the shards this replica holds and the reconcile context fenced by each. */
  private readonly ownership: ShardOwnership | undefined;

  constructor(private readonly store: Store, private readonly options: ControllerOptions) {
    // Every driver call in flight listens on it (and lets go when it ends): as many as there are workers, legitimately.
    setMaxListeners(0, this.stopping.signal);
    this.drivers = driverPoolFor(store, options.dataDir, options.requestTimeoutMs ?? 10_000, {
      groupWrites: options.groupCommits !== false,
      stopping: this.stopping.signal,
      ...(options.deadlines ? { deadlines: options.deadlines } : {}),
    });
    this.perKind = new KeyedSlots(() => options.perKind ?? 64);
    this.perProvider = new KeyedSlots(() => options.perProvider ?? 32);
    this.context = this.contextFor(store);
    if (options.sharded === true) {
      this.ownership = new ShardOwnership(store, this.holderId, options.leaseTtlMs ?? SHARD_LEASE_TTL_MS, {
        contextFor: (fenced) => this.contextFor(fenced),
        gained: (shard) => this.queueShard(shard),
        dropped: (shard) => this.queue.dropWhere((uid) => this.ownership?.shardOf(uid) === shard),
        ...(options.onLeaseError ? { onError: options.onLeaseError } : {}),
      });
    }
  }

  /** The reconcile context writing through `store` (the store itself, or a view of it fenced by a shard lease). */
  private contextFor(store: Store): ReconcileContext {
    const resync = this.options.resyncMs ?? {};
    return {
      store,
      drivers: this.drivers,
      pollMs: this.options.pollMs ?? 1_000,
      now: this.options.clock ?? (() => new Date()),
      resyncMs: (kind) => (resync[kind] ?? DEFAULT_RESYNC_MS) * (0.9 + 0.2 * Math.random()),
      record: (r, type, reason, message) =>
        store.events.append({ tenant: r.tenant, uid: r.uid, kind: r.kind, namespace: r.namespace, name: r.name, type, reason, message }),
      wake: (uid) => this.queue.add(uid),
      wakeWaiting: () => this.wakeWaiting(),
    };
  }

  /** The live process reconciling the data dir now, if any: the lease holder, or a live replica of a sharded cluster. */
  static activeReconciler(store: Store): LeaseHolder | undefined {
    return store.leases.activeHolder(LEASE_NAME) ?? store.shardLeases.liveReplicas()[0];
  }

  /** Sharded: the shards this replica holds now, with their tokens (empty when not sharded). */
  heldShards(): HeldShard[] {
    return this.ownership?.held() ?? [];
  }

  /**
   * Takes the lease (or throws LeaseHeldError) and starts reconciling everything in the store;
   * sharded, joins the replicas instead (LeaseHeldError only while an unsharded process reconciles).
   */
  start(): void {
    const ttl = this.options.leaseTtlMs ?? 15_000;
    if (this.ownership) {
      const unsharded = this.store.leases.activeHolder(LEASE_NAME);
      if (unsharded) throw new LeaseHeldError(unsharded);
      this.running = true;
      this.ownership.start();
    } else {
      // Replicas sharing the store reconcile it: a one-shot controller (cairn apply) follows them instead.
      const replica = this.store.shardLeases.liveReplicas()[0];
      if (replica) throw new LeaseHeldError(replica);
      const attempt = this.store.leases.tryAcquire(LEASE_NAME, this.holderId, ttl);
      if (!attempt.acquired) throw new LeaseHeldError(attempt.heldBy);
      this.running = true;
      this.leaseTimer = setInterval(() => {
        if (!this.store.leases.renew(LEASE_NAME, this.holderId, ttl)) {
          void this.stop().then(() => this.options.onLeaseLost?.());
        }
      }, ttl / 3);
      this.leaseTimer.unref();
    }
    this.readFeed();
    this.feedTimer = setInterval(() => this.readFeed(), this.options.feedIntervalMs ?? 100);
    this.feedTimer.unref();
    const workers = this.options.workers ?? 64;
    for (let i = 0; i < workers; i++) this.workerLoops.push(this.work());
  }

  /** Reads new writes now (a writer in this process can call it instead of waiting for the timer). */
  readFeed(): void {
    if (!this.running) return;
    // Status writes bump resourceVersion too; only a new generation, a deletion, changed
    // annotations or a wake (something was asked of it through the API) is worth a reconcile.
    for (const r of this.store.resources.signalsSince(this.revision)) {
      this.revision = Math.max(this.revision, r.resourceVersion);
      const last = this.seen.get(r.uid);
      if (!last || last.generation !== r.generation || last.deleting !== r.deleting || last.annotations !== r.annotations || last.wakes !== r.wakes) {
        this.seen.set(r.uid, { generation: r.generation, deleting: r.deleting, annotations: r.annotations, wakes: r.wakes });
        // Sharded: a resource of a shard held elsewhere is another replica's (queued here if this one takes the shard).
        if (!this.ownership || this.ownership.holds(r.uid)) this.queue.add(r.uid);
        if (r.kind === 'Provider' && last && (last.generation !== r.generation || last.wakes !== r.wakes)) this.wakeUsersOf(r.uid);
      }
    }
  }

  /** A shard was taken: every resource of it is queued (a dead replica may have left work half done). */
  private queueShard(shard: number): void {
    for (const uid of this.seen.keys()) if (this.ownership?.shardOf(uid) === shard) this.queue.add(uid);
  }

  /** A Provider changed (spec, or credentials stored again): what stalled on it looks again now. */
  private wakeUsersOf(providerUid: string): void {
    const provider = this.store.resources.get(providerUid);
    if (!provider) return;
    for (const user of this.store.resources.usersOf(provider)) if (!this.ownership || this.ownership.holds(user.uid)) this.queue.add(user.uid);
  }

  /** Resources queued now and waiting for a worker, by kind (not those delayed or being reconciled). */
  queueDepthByKind(): Record<Kind, number> {
    const depth: Record<Kind, number> = { Provider: 0, SSHKey: 0, Server: 0, Database: 0, App: 0, AlertRule: 0 };
    const kinds = new Map<string, Kind>();
    for (const uid of this.queue.snapshot()) {
      const kind = this.queuedKinds.get(uid) ?? this.store.resources.get(uid)?.kind;
      if (kind === undefined) continue;
      kinds.set(uid, kind);
      depth[kind] += 1;
    }
    this.queuedKinds = kinds;
    return depth;
  }

  /**
   * Stops reconciling and gives the lease back. `{ releaseLeases: false }` leaves the leases to
   * expire, as a crashed process would (tests of takeover).
   */
  async stop(options: { releaseLeases?: boolean } = {}): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.feedTimer);
    clearInterval(this.leaseTimer);
    this.ownership?.stop();
    this.queue.shutdown();
    // Calls in flight are cancelled, not waited for and not recorded as failures: a create under
    // way keeps its pending record and is found again by its key after a restart.
    this.stopping.abort();
    await Promise.all(this.workerLoops.splice(0));
    await this.drivers.close();
    if (options.releaseLeases !== false) {
      if (this.ownership) this.store.shardLeases.leave(this.holderId);
      else this.store.leases.release(LEASE_NAME, this.holderId);
    }
    this.store.commits.commitNow(); // what the workers wrote is durable before stop() returns
  }

  private async work(): Promise<void> {
    for (;;) {
      const uid = await this.queue.get();
      if (uid === undefined) return;
      try {
        await this.process(uid);
      } finally {
        this.queue.done(uid);
      }
    }
  }

  private async process(uid: string): Promise<void> {
    // Sharded: only resources of a shard held now, each reconciled behind that shard's fence.
    const context = this.ownership ? this.ownership.contextOf(uid) : this.context;
    if (!context) {
      this.queue.forget(uid);
      return;
    }
    const resource = this.store.resources.get(uid);
    if (!resource) {
      this.queue.forget(uid);
      this.seen.delete(uid);
      this.stopWaiting(uid);
      return;
    }
    // At a cap, the work is parked with the cap, not in a worker: the worker goes on with other work.
    const kindSlots = this.perKind.get(resource.kind);
    if (!kindSlots.tryAcquire()) {
      kindSlots.park(uid);
      return;
    }
    const providerSlots = this.perProvider.get(this.providerKey(resource));
    if (!providerSlots.tryAcquire()) {
      this.release(kindSlots);
      providerSlots.park(uid);
      return;
    }
    const started = performance.now();
    try {
      if (!this.running) return;
      // The reconcile's writes join the open commit group (one fsync for many workers); its
      // vendor calls wait for that group's commit first (durable-drivers.ts).
      if (this.options.groupCommits !== false) this.store.commits.begin();
      let outcome: ReconcileOutcome;
      try {
        outcome = await reconcileResource(context, resource);
      } catch (error) {
        if (!(error instanceof FencedWriteError)) throw error;
        // Another replica holds the shard now: this reconcile writes nothing more and is not retried here (the holder reconciles it).
        this.ownership?.drop(error.shard);
        this.options.onFenced?.(resource, error);
        return;
      }
      // Cut short by stop(): not a reconcile that failed, and nothing to schedule.
      if (!outcome.ok && outcome.failure.reason === REASON_CANCELLED) return;
      this.options.onReconciled?.(resource, outcome, performance.now() - started);
      this.schedule(resource, outcome);
    } finally {
      this.release(providerSlots);
      this.release(kindSlots);
    }
  }

  /** Frees a slot and queues again the work parked longest at it. */
  private release(slots: Slots): void {
    const parked = slots.release();
    if (parked !== undefined) this.queue.add(parked);
  }

  /** Queues every waiter once; each waits again if it still has to. */
  private wakeWaiting(): void {
    for (const waiter of this.waiting) this.queue.add(waiter);
    this.waiting.clear();
    for (const waiter of this.waitsFor.keys()) this.queue.add(waiter);
    this.waitingOn.clear();
    this.waitsFor.clear();
  }

  /**
   * `resource` became Ready: queues what waits for it by name and the waiters for no one
   * resource — not every waiter, which made each Ready cost a reconcile of all of them.
   */
  private wakeDependentsOf(resource: AnyStoredResource): void {
    const key = dependencyKey(resource.tenant, resource);
    for (const waiter of this.waitingOn.get(key) ?? []) {
      this.queue.add(waiter);
      this.waitsFor.delete(waiter);
    }
    this.waitingOn.delete(key);
    for (const waiter of this.waiting) this.queue.add(waiter);
    this.waiting.clear();
  }

  private startWaiting(uid: string, waitsFor: string | undefined): void {
    this.stopWaiting(uid);
    if (waitsFor === undefined) {
      this.waiting.add(uid);
      return;
    }
    this.waitsFor.set(uid, waitsFor);
    let waiters = this.waitingOn.get(waitsFor);
    if (!waiters) this.waitingOn.set(waitsFor, (waiters = new Set()));
    waiters.add(uid);
  }

  private stopWaiting(uid: string): void {
    this.waiting.delete(uid);
    const key = this.waitsFor.get(uid);
    if (key === undefined) return;
    this.waitsFor.delete(uid);
    const waiters = this.waitingOn.get(key);
    waiters?.delete(uid);
    if (waiters?.size === 0) this.waitingOn.delete(key);
  }

  private schedule(resource: AnyStoredResource, outcome: ReconcileOutcome): void {
    const uid = resource.uid;
    // It failed: what waits on it says so now rather than at its next retry.
    if (outcome.becameFailed) this.wakeDependentsOf(resource);
    if (outcome.ok) {
      this.queue.forget(uid);
      this.stopWaiting(uid);
      // Something became usable: whatever waits for it looks again now, not after its retry delay.
      if (outcome.becameReady) this.wakeDependentsOf(resource);
      if (outcome.result.requeueAfterMs !== undefined) this.queue.addAfter(uid, outcome.result.requeueAfterMs);
      return;
    }
    switch (outcome.failure.kind) {
      case 'stall':
        // It needs its user, but a vendor's refusal can end by itself (an outage, a quota): look
        // again with backoff, never later than the resync interval; at once when its spec or its
        // provider changes (the feed re-queues it then).
        this.queue.addBackoffCapped(uid, STALL_FIRST_RETRY_MS, this.context.resyncMs(resource.kind));
        return;
      case 'wait':
        this.startWaiting(uid, outcome.failure.waitsFor);
        this.queue.forget(uid);
        this.queue.addAfter(uid, outcome.failure.retryAfterMs);
        return;
      case 'retry':
        this.queue.addRateLimited(uid, outcome.failure.retryAfterMs);
    }
  }

  /** Reconciles towards one provider share its cap: servers by their provider, the rest by their server's. */
  private providerKey(r: AnyStoredResource): string {
    const scope = `${r.tenant}/${r.namespace}`;
    switch (r.kind) {
      case 'Provider':
        return `${scope}/${r.name}`;
      case 'SSHKey':
        // Made by cairn itself, at no vendor: SSH keys share one cap of their own.
        return `${scope}/SSHKey`;
      case 'AlertRule':
        // Evaluated by the alert loop, at no vendor: alert rules share one cap of their own.
        return `${scope}/AlertRule`;
      case 'Server':
        return `${scope}/${r.spec.provider}`;
      case 'Database':
      case 'App': {
        if (r.kind === 'Database' && r.spec.managed === true) return `${scope}/${r.spec.provider ?? '?'}`;
        const server = this.store.resources.find(r.tenant, { kind: 'Server', namespace: r.namespace, name: r.spec.server ?? '' });
        return `${scope}/${server?.spec.provider ?? '?'}`;
      }
    }
  }
}
