/**
 * @module Work that must run once per cluster, not once per replica (git source sync, alert
 * evaluation, event-webhook dispatch, resuming migrations): replicas sharing one store run it
 * only on the one holding the `singletons` lease, renewed every TTL/3; when that replica stops
 * renewing, another takes the lease once it expires and starts the work there. Between passes,
 * the store's connection renews the lease while the replica waits inside the database.
 */
import type { Fence } from '../reconcile/fenced-store.js';
import type { Leases } from '../store/lease.js';

export const SINGLETONS_LEASE = 'singletons';

/**
 * The fence of the duties' writes: `holder` must hold the singletons lease, unexpired, in the
 * transaction of each write (a replica paused past the lease writes nothing when it resumes,
 * before its next pass finds the lease gone and stops the duties).
 */
export function singletonsFence(leases: Leases, holder: string): Fence {
  return { check: () => leases.checkHeld(SINGLETONS_LEASE, holder, Date.now()) };
}

/** What the lease holder runs. */
export interface SingletonDuties {
  start(): void;
  stop(): Promise<void>;
}

export class ClusterSingletons {
  private timer: NodeJS.Timeout | undefined;
  private holding = false;
  /** Until when the lease of the last successful renewal runs. */
  private leasedUntil = 0;

  constructor(
    private readonly leases: Leases,
    private readonly holder: string,
    private readonly ttlMs: number,
    private readonly duties: SingletonDuties,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** True while this replica holds the lease and runs the duties. */
  get running(): boolean {
    return this.holding;
  }

  /** Tries for the lease now, then every TTL/3. */
  start(): void {
    this.pass();
    this.timer = setInterval(() => this.pass(), this.ttlMs / 3);
    this.timer.unref();
  }

  /** Stops the duties if they run here; gives the lease back unless `release` is false (as a crash would leave it). */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    clearInterval(this.timer);
    if (!this.holding) return;
    this.holding = false;
    this.leases.renewWhileBusy(SINGLETONS_LEASE, this.holder, undefined);
    await this.duties.stop();
    if (options.release !== false) this.leases.release(SINGLETONS_LEASE, this.holder);
  }

  /** Renews the lease it holds (stopping the duties if it was lost), or takes it when free. */
  pass(): void {
    const now = Date.now();
    try {
      if (this.holding) {
        if (this.leases.renew(SINGLETONS_LEASE, this.holder, this.ttlMs)) {
          this.leasedUntil = now + this.ttlMs;
          this.leases.renewWhileBusy(SINGLETONS_LEASE, this.holder, this.ttlMs);
          return;
        }
        this.lose('lost the singletons lease to another replica');
        return;
      }
      if (!this.leases.tryAcquire(SINGLETONS_LEASE, this.holder, this.ttlMs).acquired) return;
      this.holding = true;
      this.leasedUntil = now + this.ttlMs;
      this.leases.renewWhileBusy(SINGLETONS_LEASE, this.holder, this.ttlMs);
      this.log('holding the singletons lease: git sync, alerts, event webhooks and migrations run on this replica');
      this.duties.start();
    } catch (error) {
      // The database busy past its timeout, say: the next pass tries again (an unrenewed lease expires).
      this.log(`singletons lease: ${error instanceof Error ? error.message : String(error)}`);
      if (this.holding && Date.now() >= this.leasedUntil) this.lose('the singletons lease ran out unrenewed');
    }
  }

  private lose(why: string): void {
    this.holding = false;
    this.leases.renewWhileBusy(SINGLETONS_LEASE, this.holder, undefined);
    this.log(`${why}; git sync, alerts and event webhooks stop on this replica`);
    void this.duties.stop();
  }
}
