import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DriverPool } from '../reconcile/driver-pool.js';
import { Store } from '../store/store.js';
import { FIXED_KEY, FixedPlatform, fixedAnalysis, recordFixedMigration } from './fixed-platform.fixture.js';
import { manifestsFromAnalysis } from './manifests.js';
import { runSteps, type MigrationStepRun, type StepContext } from './step-engine.js';
import { migrationSteps, STEP_NAMES, type MigrationEnvironment } from './steps.js';
import { storedBytes } from '../../test/support/store-engine.js';

let dir: string;
let store: Store;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-migration-steps-'));
  store = Store.open(dir, { env: { CAIRN_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') } });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function newMigration(stepNames: readonly string[] = ['a', 'b', 'c']) {
  return recordFixedMigration(store, stepNames, manifestsFromAnalysis(fixedAnalysis(), { server: 'web-1' }).yaml);
}

describe('runSteps', () => {
  it('never runs a step that succeeded again, and resumes the one a crash interrupted', async () => {
    const calls: Array<{ step: string; resumed: boolean }> = [];
    const record = (step: string, ctx: StepContext): void => {
      calls.push({ step, resumed: ctx.resumed });
    };
    const crash = new AbortController();
    const first: Record<string, MigrationStepRun> = {
      a: (ctx) => {
        record('a', ctx);
        return Promise.resolve('a done');
      },
      // The process dies during b: its promise never settles; the abort stands for the kill.
      b: (ctx) => {
        record('b', ctx);
        crash.abort();
        return Promise.reject(new Error('killed'));
      },
      c: (ctx) => {
        record('c', ctx);
        return Promise.resolve('c done');
      },
    };
    const interrupted = await runSteps(store.platformMigrations, newMigration(), first, { signal: crash.signal });
    expect(interrupted.status).toBe('running');
    expect(interrupted.steps.map((s) => s.status)).toEqual(['succeeded', 'running', 'pending']);

    // A new process: the same record read fresh from the store.
    const reopened = store.platformMigrations.require('default', interrupted.id);
    const finished = await runSteps(store.platformMigrations, reopened, { ...first, b: (ctx) => (record('b', ctx), Promise.resolve('b done')) }, { signal: new AbortController().signal });
    expect(calls).toEqual([
      { step: 'a', resumed: false },
      { step: 'b', resumed: false },
      { step: 'b', resumed: true },
      { step: 'c', resumed: false },
    ]);
    expect(finished.status).toBe('succeeded');
    expect(finished.steps.map((s) => [s.name, s.status, s.detail])).toEqual([
      ['a', 'succeeded', 'a done'],
      ['b', 'succeeded', 'b done'],
      ['c', 'succeeded', 'c done'],
    ]);
  });

  it('fails the migration at the first step that throws, naming it, and leaves the rest pending', async () => {
    const steps: Record<string, MigrationStepRun> = {
      a: () => Promise.resolve('ok'),
      b: () => Promise.reject(new Error('table public.orders has 10 rows on the platform but 9 in cairn')),
      c: () => Promise.reject(new Error('must not run')),
    };
    const failed = await runSteps(store.platformMigrations, newMigration(), steps, { signal: new AbortController().signal });
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe('b: table public.orders has 10 rows on the platform but 9 in cairn');
    expect(failed.steps.map((s) => [s.name, s.status, s.error])).toEqual([
      ['a', 'succeeded', null],
      ['b', 'failed', 'table public.orders has 10 rows on the platform but 9 in cairn'],
      ['c', 'pending', null],
    ]);
  });
});

describe('read_config', () => {
  const SECRET_VALUE = 'very-secret-greeting-value';
  function environment(platform: FixedPlatform): MigrationEnvironment {
    return {
      store,
      drivers: {} as DriverPool,
      platformFor: () => platform,
      afterWrite: () => undefined,
      readyTimeoutMs: 1000,
      pollMs: 10,
      tarballMaxBytes: 1024,
    };
  }
  const platform = (): FixedPlatform =>
    new FixedPlatform({ analysis: fixedAnalysis(), configVars: { GREETING: SECRET_VALUE, DATABASE_URL: 'postgres://u:p@db.example.com/d' }, databaseUrls: { 'shop-db': 'postgres://u:p@db.example.com/d' } });

  it('after a restart without the API key, fails asking for the key again', async () => {
    const steps = migrationSteps(environment(platform()));
    const migration = newMigration(STEP_NAMES);
    const outcome = await runSteps(store.platformMigrations, migration, steps, { signal: new AbortController().signal });
    expect(outcome.status).toBe('failed');
    expect(outcome.steps[0]).toMatchObject({ name: 'read_config', status: 'failed' });
    expect(outcome.error).toContain('run it again with the API key');
    expect(outcome.error).toContain(`/migrations/${migration.id}/retry`);
  });

  it('reads the values with the key and seals them: they are not in the state file in the clear', async () => {
    const fixed = platform();
    const steps = migrationSteps(environment(fixed));
    const migration = newMigration(['read_config']);
    const outcome = await runSteps(store.platformMigrations, migration, steps, { apiKey: FIXED_KEY, signal: new AbortController().signal });
    expect(outcome.status).toBe('succeeded');
    expect(outcome.steps[0]!.detail).toBe('read 2 config vars and 1 database URL; sealed');
    expect(fixed.reads).toEqual({ configVars: 1, databaseUrls: 1 });
    store.close();
    const bytes = storedBytes(dir);
    expect(bytes.includes(Buffer.from(SECRET_VALUE))).toBe(false);
    expect(bytes.includes(Buffer.from(FIXED_KEY))).toBe(false);
    store = Store.open(dir, { env: { CAIRN_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') } });
  });
});
