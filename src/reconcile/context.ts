/**
 * @module What every kind's reconciler is handed: the store, the drivers, the clock settings,
 * and ways to record an event and to wake another resource.
 */
import type { Kind } from '../model/kinds.js';
import type { ResourceIdentity } from '../model/resource.js';
import type { EventType } from '../store/events.js';
import type { Store } from '../store/store.js';
import type { DriverPool } from './driver-pool.js';

export interface ReconcileContext {
  store: Store;
  drivers: DriverPool;
  /** How often to look again while the vendor is still working (provisioning, deleting). */
  pollMs: number;
  /** The current time (backup schedules go by it). */
  now(): Date;
  /** Drift-check interval for a converged resource of this kind, jitter included. */
  resyncMs(kind: Kind): number;
  record(resource: ResourceIdentity, type: EventType, reason: string, message: string): void;
  /** Queues another resource. */
  wake(uid: string): void;
  /** Queues every resource that is waiting for another (e.g. after one is deleted). */
  wakeWaiting(): void;
}

export interface ReconcileResult {
  /** Look at it again after this long, even if nothing changes. */
  requeueAfterMs?: number;
}
