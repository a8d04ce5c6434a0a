/**
 * @module Runs migrations in the background of `cairn serve`: one at a time per migration, each
 * through its steps (./steps.ts, recorded by ./step-engine.ts). A migration asked for through the
 * API starts at once with the caller's API key, held in memory only for this run; after a restart
 * the unfinished ones are resumed without it (a migration that still needed the key fails saying
 * so, and `retry` with the key continues it). Stopping aborts what runs; those steps stay
 * `running` and are resumed at the next start.
 *
 * Replicas sharing a store run each migration once: a run claims the migration's lease first
 * (./migration-claims.ts) and writes only while it holds it; the replica running the
 * once-per-cluster duties resumes, every lease TTL, the unfinished migrations nobody holds.
 */
import { ConflictError } from '../model/errors.js';
import { fencedStore } from '../reconcile/fenced-store.js';
import type { PlatformMigration } from '../store/platform-migrations.js';
import { MigrationClaims, MIGRATION_LEASE_TTL_MS } from './migration-claims.js';
import { runSteps, type MigrationStepRun } from './step-engine.js';
import { migrationSteps, type MigrationEnvironment, STEP_NAMES } from './steps.js';

export { STEP_NAMES };

export class MigrationRunner {
  private readonly running = new Map<string, Promise<PlatformMigration>>();
  private readonly stopping = new AbortController();
  private resumeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly env: MigrationEnvironment,
    private readonly onError: (migration: PlatformMigration, error: unknown) => void = () => undefined,
    readonly claims = new MigrationClaims(env.store.leases),
    private readonly stepsFor: (env: MigrationEnvironment) => Readonly<Record<string, MigrationStepRun>> = migrationSteps,
  ) {}

  /**
   * Claims `id` for this process (see MigrationClaims.claim): call it in the transaction that
   * records a new migration, so no other replica resumes it before `start` runs it here.
   */
  claim(id: string): boolean {
    return this.claims.claim(id);
  }

  /**
   * Runs what is left of `migration` in the background; false when it already runs, here or on
   * another replica holding its claim.
   */
  start(migration: PlatformMigration, apiKey?: string): boolean {
    const { id } = migration;
    if (this.running.has(id) || this.stopping.signal.aborted || !this.claims.claim(id)) return false;
    // Read again under the claim: another replica may have run it since `migration` was read.
    const current = this.env.store.platformMigrations.require(migration.tenant, id);
    if (current.status !== 'pending' && current.status !== 'running') {
      this.claims.release(id);
      return false;
    }
    const lost = new AbortController();
    this.claims.keep(id, () => lost.abort());
    // Every write of the run is checked against its claim, in the write's transaction.
    const store = fencedStore(this.env.store, this.claims.fence(id));
    const signal = AbortSignal.any([this.stopping.signal, lost.signal]);
    const run = runSteps(store.platformMigrations, current, this.stepsFor({ ...this.env, store }), { ...(apiKey === undefined ? {} : { apiKey }), signal })
      .catch((error: unknown) => {
        this.onError(current, error);
        return current;
      })
      .finally(() => {
        this.running.delete(id);
        try {
          this.claims.release(id);
        } catch {
          // The store is gone (stopping): the claim runs out by itself.
        }
      });
    this.running.set(id, run);
    return true;
  }

  /** Starts again a migration that failed (with the API key, when its first step needs it); 409 unless it failed. */
  retry(tenant: string, id: string, apiKey?: string): PlatformMigration {
    const migration = this.env.store.platformMigrations.require(tenant, id);
    const elsewhere = this.claims.runningElsewhere(id);
    if (migration.status !== 'failed' || this.running.has(id) || elsewhere) {
      const where = elsewhere ? `running on another cairn replica (pid ${elsewhere.pid} on ${elsewhere.host})` : this.running.has(id) ? 'running' : migration.status;
      throw new ConflictError(`migration ${id} is ${where}; only a failed migration can be retried`);
    }
    const pending = this.env.store.transaction(() => {
      this.claims.claim(id);
      return this.env.store.platformMigrations.update(tenant, id, { status: 'pending', error: null });
    });
    this.start(pending, apiKey);
    return pending;
  }

  /** Resumes the unfinished migrations no live process holds (at the start of `cairn serve`); returns how many. */
  resumeUnfinished(): number {
    const unfinished = this.env.store.platformMigrations.unfinished().filter((m) => !this.running.has(m.id));
    return unfinished.filter((migration) => this.start(migration)).length;
  }

  /** Resumes now, then every `everyMs` until `stopResuming` (a replica that died mid-migration leaves it to the others); returns how many now. */
  keepResuming(everyMs = MIGRATION_LEASE_TTL_MS): number {
    this.stopResuming();
    this.resumeTimer = setInterval(() => {
      try {
        this.resumeUnfinished();
      } catch {
        // The database busy: the next round tries again.
      }
    }, everyMs);
    this.resumeTimer.unref();
    return this.resumeUnfinished();
  }

  stopResuming(): void {
    clearInterval(this.resumeTimer);
    this.resumeTimer = undefined;
  }

  /** Whether this process is running the migration now. */
  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  /** Resolves when the migration's current run ends (at once when none runs). */
  async settled(id: string): Promise<void> {
    await this.running.get(id);
  }

  /** Aborts every run; their steps are resumed at the next start. */
  async stop(): Promise<void> {
    this.stopResuming();
    this.stopping.abort();
    await Promise.all([...this.running.values()]);
  }
}
