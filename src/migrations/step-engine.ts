/**
 * @module Runs a migration's steps in order, recording each as `running` before it acts and
 * `succeeded` (with what it did) once done, so a step that succeeded is never run again, whatever
 * crashes; a step found `running` (the process died during it) or `failed` (a retry) runs again
 * told that it is resumed, and checks what already exists before acting. The first step that
 * throws fails the migration with its message.
 */
import type { MigrationStep, PlatformMigration, PlatformMigrations } from '../store/platform-migrations.js';

export interface StepContext {
  readonly migration: PlatformMigration;
  /** The platform's API key when the caller gave one (a start or a retry); never after a restart. */
  readonly apiKey: string | undefined;
  /** The step was begun before (it crashed or failed): what it made may already exist. */
  readonly resumed: boolean;
  readonly signal: AbortSignal;
  /** Records what the step is doing now, for `GET /migrations/{id}`. */
  progress(detail: string): void;
}

/** A step: does its work and returns what it did, in words; throws why it could not. */
export type MigrationStepRun = (ctx: StepContext) => Promise<string>;

function now(): string {
  return new Date().toISOString();
}

function replaceStep(steps: readonly MigrationStep[], name: string, change: Partial<MigrationStep>): MigrationStep[] {
  return steps.map((s) => (s.name === name ? { ...s, ...change } : s));
}

/** Runs what is left of `migration`; returns it as stored at the end (succeeded or failed). */
export async function runSteps(
  records: PlatformMigrations,
  migration: PlatformMigration,
  steps: Readonly<Record<string, MigrationStepRun>>,
  options: { apiKey?: string; signal: AbortSignal },
): Promise<PlatformMigration> {
  let current = records.update(migration.tenant, migration.id, { status: 'running', error: null });
  for (const step of migration.steps) {
    if (step.status === 'succeeded') continue;
    const run = steps[step.name];
    const resumed = step.status === 'running' || step.status === 'failed';
    current = records.update(current.tenant, current.id, {
      status: 'running',
      steps: replaceStep(current.steps, step.name, { status: 'running', startedAt: now(), finishedAt: null, error: null, detail: resumed ? 'resumed' : null }),
    });
    try {
      if (run === undefined) throw new Error(`this cairn has no step named ${step.name}`);
      const ctx: StepContext = {
        migration: current,
        apiKey: options.apiKey,
        resumed,
        signal: options.signal,
        progress: (detail) => {
          const fresh = records.require(current.tenant, current.id);
          records.update(current.tenant, current.id, { steps: replaceStep(fresh.steps, step.name, { detail }) });
        },
      };
      const detail = await run(ctx);
      const fresh = records.require(current.tenant, current.id);
      current = records.update(current.tenant, current.id, { steps: replaceStep(fresh.steps, step.name, { status: 'succeeded', detail, finishedAt: now() }) });
    } catch (error) {
      if (options.signal.aborted) {
        // The process is stopping: the step stays `running`, and is resumed at the next start.
        return records.require(current.tenant, current.id);
      }
      const message = error instanceof Error ? error.message : String(error);
      const fresh = records.require(current.tenant, current.id);
      return records.update(current.tenant, current.id, {
        status: 'failed',
        error: `${step.name}: ${message}`,
        steps: replaceStep(fresh.steps, step.name, { status: 'failed', error: message, finishedAt: now() }),
      });
    }
  }
  return records.update(current.tenant, current.id, { status: 'succeeded', error: null });
}
