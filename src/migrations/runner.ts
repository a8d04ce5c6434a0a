/**
 * @module Runs migrations in the background of `cairn serve`: one at a time per migration, each
 * through its steps (./steps.ts, recorded by ./step-engine.ts). A migration asked for through the
 * API starts at once with the caller's API key, held in memory only for this run; after a restart
 * the unfinished ones are resumed without it (a migration that still needed the key fails saying
 * so, and `retry` with the key continues it). Stopping aborts what runs; those steps stay
 * `running` and are resumed at the next start.
 */
import { ConflictError } from '../model/errors.js';
import type { PlatformMigration } from '../store/platform-migrations.js';
import { runSteps } from './step-engine.js';
import { migrationSteps, type MigrationEnvironment, STEP_NAMES } from './steps.js';

export { STEP_NAMES };

export class MigrationRunner {
  private readonly running = new Map<string, Promise<PlatformMigration>>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly env: MigrationEnvironment,
    private readonly onError: (migration: PlatformMigration, error: unknown) => void = () => undefined,
  ) {}

  /** Runs what is left of `migration` in the background; a second start of one already running is ignored. */
  start(migration: PlatformMigration, apiKey?: string): void {
    if (this.running.has(migration.id) || this.stopping.signal.aborted) return;
    const run = runSteps(this.env.store.platformMigrations, migration, migrationSteps(this.env), { ...(apiKey === undefined ? {} : { apiKey }), signal: this.stopping.signal })
      .catch((error: unknown) => {
        this.onError(migration, error);
        return migration;
      })
      .finally(() => this.running.delete(migration.id));
    this.running.set(migration.id, run);
  }

  /** Starts again a migration that failed (with the API key, when its first step needs it); 409 unless it failed. */
  retry(tenant: string, id: string, apiKey?: string): PlatformMigration {
    const migration = this.env.store.platformMigrations.require(tenant, id);
    if (migration.status !== 'failed' || this.running.has(id)) {
      throw new ConflictError(`migration ${id} is ${this.running.has(id) ? 'running' : migration.status}; only a failed migration can be retried`);
    }
    const pending = this.env.store.platformMigrations.update(tenant, id, { status: 'pending', error: null });
    this.start(pending, apiKey);
    return pending;
  }

  /** Resumes every unfinished migration of the data dir (at the start of `cairn serve`); returns how many. */
  resumeUnfinished(): number {
    const unfinished = this.env.store.platformMigrations.unfinished().filter((m) => !this.running.has(m.id));
    for (const migration of unfinished) this.start(migration);
    return unfinished.length;
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
    this.stopping.abort();
    await Promise.all([...this.running.values()]);
  }
}
