/**
 * @module The store as a sharded reconcile sees it: every call on the store's parts (resources,
 * operations, events, backups, actions, …) and every `transaction` runs in one transaction with
 * a check of the reconciled resource's shard lease, so a replica that no longer holds the shard
 * writes nothing — not a status, not an event, not the pending create a vendor call waits for.
 */
import { FencedWriteError, type ShardLeases } from '../store/shard-leases.js';
import type { Store } from '../store/store.js';

export { FencedWriteError };

/** What writes are checked against, in their transaction. */
export interface Fence {
  /** Throws unless the writes may still land. */
  check(): void;
}

/** What a reconcile's writes are checked against: its resource's shard lease. */
export interface WriteFence extends Fence {
  readonly shard: number;
  readonly token: number;
  /** Throws FencedWriteError unless the writes may still land. */
  check(): void;
}

/** The fence of one shard lease held by `holder` under `token`, checked against the clock at each write. */
export function shardFence(leases: ShardLeases, shard: number, holder: string, token: number): WriteFence {
  return { shard, token, check: () => leases.checkFence(shard, holder, token, Date.now()) };
}

/**
 * Parts that are not the resource's to fence: the commit group belongs to the whole loop (a
 * reconcile opens it and waits for it), and shard leases are the fence itself.
 */
const UNFENCED_PARTS = new Set<PropertyKey>(['commits', 'shardLeases']);

/**
 * `store` with every call on its parts made behind `fence`, in the same transaction. The fence is
 * checked once per transaction where the connection tells transactions apart, and again after
 * this store wrote to its leases (a shard given back inside an open commit group): a transaction
 * holds the store's write lock to its end, and other replicas change leases only in transactions
 * that take it, so what held at the check holds until the commit.
 */
export function fencedStore(store: Store, fence: Fence): Store {
  const parts = new Map<PropertyKey, object>();
  let checked: { serial: number; leaseChanges: number } | undefined;
  const transaction = <T>(work: () => T): T =>
    store.transaction(() => {
      const serial = store.transactionSerial;
      const leaseChanges = store.leaseChanges;
      if (serial === undefined || serial !== checked?.serial || leaseChanges !== checked.leaseChanges) {
        fence.check();
        checked = serial === undefined ? undefined : { serial, leaseChanges };
      }
      return work();
    });
  return new Proxy(store, {
    get(target, property) {
      if (property === 'transaction') return transaction;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value === 'function') return (value as (...args: unknown[]) => unknown).bind(target);
      if (typeof value !== 'object' || value === null || UNFENCED_PARTS.has(property)) return value;
      let part = parts.get(property);
      if (part === undefined) {
        part = fencedPart(value, transaction);
        parts.set(property, part);
      }
      return part;
    },
  });
}

/** A part of the store whose every method runs inside `transaction` (which checks the fence first). */
function fencedPart<T extends object>(part: T, transaction: <R>(work: () => R) => R): T {
  return new Proxy(part, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]): unknown => transaction(() => method.apply(target, args));
    },
  });
}
