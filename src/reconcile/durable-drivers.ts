/**
 * @module Vendor calls wait for durability: a driver wrapped here awaits the store's commit group
 * before every call, so nothing reaches a vendor before what cairn wrote ahead of it (a pending
 * create and its idempotency key, a database's password, the deployment a rollout belongs to,
 * the backup record whose id is the vendor's key) has been fsynced. When the call returns, the
 * group is opened again, so the writes that follow it — status, events — join one commit with
 * those of the other workers instead of paying an fsync each.
 */

/** What of a commit group the wrapper needs (Store.commits). */
export interface CommitBarrier {
  /** Resolves once everything written so far is durable. */
  committed(): Promise<void>;
  /**
   * Opens a group for the writes that follow, if none is open. Only the reconcile loop's pool
   * does: elsewhere (the API's catalogs, plan --refresh, logs) a group would only hold the write
   * lock for nothing.
   */
  begin?(): void;
}

/**
 * `driver` with every method made to await `barrier.committed()` first and to open the group
 * after (when the barrier can); objects it holds (a cloud's `servers`, a runtime's `databases` and `apps`) are wrapped
 * the same way. Every driver method returns a promise (src/drivers/contract.ts), so wrapping
 * changes no signature.
 */
export function durableBeforeCalls<T extends object>(driver: T, barrier: CommitBarrier): T {
  const nested = new Map<PropertyKey, object>();
  return new Proxy(driver, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value === 'function') {
        const method = value as (...args: unknown[]) => unknown;
        return async (...args: unknown[]): Promise<unknown> => {
          await barrier.committed();
          try {
            return await method.apply(target, args);
          } finally {
            barrier.begin?.();
          }
        };
      }
      if (typeof value === 'object' && value !== null) {
        let wrapped = nested.get(property);
        if (wrapped === undefined) {
          wrapped = durableBeforeCalls(value, barrier);
          nested.set(property, wrapped);
        }
        return wrapped;
      }
      return value;
    },
  });
}
