/**
 * @module Which process runs a migration: a lease per migration (`migration <id>`), taken before
 * its first step and renewed while it runs, so replicas sharing a store never run one migration
 * twice, and one whose process died is resumed elsewhere once its lease runs out. The run's
 * writes are fenced by the lease: a process paused past it writes nothing when it resumes.
 */
import { randomUUID } from 'node:crypto';
import type { Fence } from '../reconcile/fenced-store.js';
import type { LeaseHolder, Leases } from '../store/lease.js';

/** How long a claim lasts without a renewal (renewed every third of it). */
export const MIGRATION_LEASE_TTL_MS = 10_000;

export function migrationLease(id: string): string {
  return `migration ${id}`;
}

export class MigrationClaims {
  private readonly renewals = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly leases: Leases,
    readonly holder = `cairn pid ${process.pid} ${randomUUID().slice(0, 8)}`,
    private readonly ttlMs = MIGRATION_LEASE_TTL_MS,
  ) {}

  /** Takes the migration for this process: true when it is free, ran out, is ours already, or its holder died on this host. */
  claim(id: string): boolean {
    return this.leases.tryAcquire(migrationLease(id), this.holder, this.ttlMs).acquired;
  }

  /** The live process running the migration, when another one does. */
  runningElsewhere(id: string): LeaseHolder | undefined {
    const holder = this.leases.activeHolder(migrationLease(id));
    return holder && holder.holder !== this.holder ? holder : undefined;
  }

  /** Renews the claim every TTL/3 (and while the process waits inside the database) until `release`; `lost` is called if another took it. */
  keep(id: string, lost: () => void): void {
    const name = migrationLease(id);
    clearInterval(this.renewals.get(id));
    const timer = setInterval(() => {
      try {
        if (!this.leases.renew(name, this.holder, this.ttlMs)) lost();
      } catch {
        // The database busy: the next renewal tries again, and the fence refuses writes once the claim has run out.
      }
    }, this.ttlMs / 3);
    timer.unref();
    this.renewals.set(id, timer);
    this.leases.renewWhileBusy(name, this.holder, this.ttlMs);
  }

  /** Gives the migration back (the run ended or the process is stopping). */
  release(id: string): void {
    clearInterval(this.renewals.get(id));
    this.renewals.delete(id);
    this.leases.release(migrationLease(id), this.holder);
  }

  /** The fence of the run's writes: this process must still hold the claim, unexpired. */
  fence(id: string): Fence {
    return { check: () => this.leases.checkHeld(migrationLease(id), this.holder, Date.now()) };
  }
}
