/**
 * @module The shards one replica reconciles: a lease pass every TTL/3 (heartbeat, renew, take a
 * fair share, give back the excess), and per shard held a reconcile context whose store is
 * fenced by that shard's token. A shard lost, given back or fenced is dropped at once. Between
 * passes, the store's connection renews the leases while the replica waits inside the database.
 */
import { shardOf, type HeldShard } from '../store/shard-leases.js';
import type { Store } from '../store/store.js';
import type { ReconcileContext } from './context.js';
import { fencedStore, shardFence } from './fenced-store.js';

/**
 * How long a replica's shard leases last without a renewal (renewed every third of it): a replica
 * that dies has its shards taken by the others within this plus one pass, 13.3 s.
 */
export const SHARD_LEASE_TTL_MS = 10_000;

export interface ShardOwnershipHooks {
  /** The reconcile context writing through `store` (a view fenced by one shard's lease). */
  contextFor(store: Store): ReconcileContext;
  /** A shard was taken: its resources are to be queued. */
  gained(shard: number): void;
  /** A shard is no longer held: its queued resources are to be dropped. */
  dropped(shard: number): void;
  /** A lease pass failed (the database busy, say); the next one tries again. */
  onError?(error: unknown): void;
}

export class ShardOwnership {
  private readonly shards = new Map<number, { token: number; context: ReconcileContext }>();
  private timer: NodeJS.Timeout | undefined;
  /** Until when the leases of the last successful pass run. */
  private leasedUntil = 0;

  constructor(private readonly store: Store, private readonly holder: string, private readonly ttlMs: number, private readonly hooks: ShardOwnershipHooks) {}

  /** Makes the first pass now, then one every TTL/3. */
  start(): void {
    this.pass();
    this.timer = setInterval(() => this.pass(), this.ttlMs / 3);
    this.timer.unref();
  }

  /** Stops passing (the leases are given back, or left to expire, by the caller). */
  stop(): void {
    clearInterval(this.timer);
    this.shards.clear();
    this.store.shardLeases.renewWhileBusy(this.holder, undefined, this.ttlMs);
  }

  shardOf(uid: string): number {
    return shardOf(uid, this.store.shardLeases.shards);
  }

  holds(uid: string): boolean {
    return this.shards.has(this.shardOf(uid));
  }

  /** The fenced context to reconcile `uid` in, or undefined when its shard is not held. */
  contextOf(uid: string): ReconcileContext | undefined {
    return this.shards.get(this.shardOf(uid))?.context;
  }

  held(): HeldShard[] {
    return [...this.shards].map(([shard, { token }]) => ({ shard, token })).sort((a, b) => a.shard - b.shard);
  }

  /** Stops reconciling `shards` (their leases were lost, given back, or a write under one was fenced). */
  drop(...shards: number[]): void {
    const dropped = shards.filter((shard) => this.shards.delete(shard));
    if (dropped.length === 0) return;
    // Renewed no more while waiting on the database either: they go to whoever takes them.
    this.store.shardLeases.renewWhileBusy(this.holder, this.held(), this.ttlMs);
    for (const shard of dropped) this.hooks.dropped(shard);
  }

  /** One lease pass: heartbeat, renew, take or give back, in one transaction. */
  pass(): void {
    let result;
    try {
      result = this.store.shardLeases.pass(this.holder, this.held(), this.ttlMs);
    } catch (error) {
      this.hooks.onError?.(error);
      // Leases not renewed run out: past then, nothing is held, whatever the store says later.
      if (Date.now() >= this.leasedUntil) this.drop(...this.shards.keys());
      return;
    }
    this.leasedUntil = result.at + this.ttlMs;
    this.drop(...result.lost, ...result.handedBack);
    for (const { shard, token } of result.gained) {
      const fence = shardFence(this.store.shardLeases, shard, this.holder, token);
      this.shards.set(shard, { token, context: this.hooks.contextFor(fencedStore(this.store, fence)) });
      this.hooks.gained(shard);
    }
    // Until the next pass: a long wait on the database (another replica's big write) renews them.
    this.store.shardLeases.renewWhileBusy(this.holder, this.held(), this.ttlMs);
  }
}
