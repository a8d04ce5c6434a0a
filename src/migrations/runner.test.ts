/**
 * @module Migrations on replicas sharing one store: a migration runs on one replica only (the
 * others neither start, resume nor retry it, nor run it again from a stale read), and one whose
 * replica stopped renewing its claim is resumed by another, while the stopped run's late writes
 * are refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DriverPool } from '../reconcile/driver-pool.js';
import { LeaseLostError } from '../store/lease.js';
import { Store } from '../store/store.js';
import { recordFixedMigration } from './fixed-platform.fixture.js';
import { MigrationClaims } from './migration-claims.js';
import { MigrationRunner } from './runner.js';
import type { MigrationStepRun } from './step-engine.js';
import type { MigrationEnvironment } from './steps.js';

let dir: string;
let stores: Store[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-migration-runner-'));
  // Two replicas: two stores on the one data dir (on PostgreSQL, on its one database).
  const env = { CAIRN_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') };
  stores = [Store.open(dir, { env }), Store.open(dir, { env })];
});
afterEach(() => {
  for (const store of stores) store.close();
  rmSync(dir, { recursive: true, force: true });
});

function environment(store: Store): MigrationEnvironment {
  return {
    store,
    drivers: {} as DriverPool,
    platformFor: () => {
      throw new Error('these steps reach no platform');
    },
    afterWrite: () => undefined,
    readyTimeoutMs: 1_000,
    pollMs: 10,
    tarballMaxBytes: 1_000,
  };
}

function recordMigration(store: Store) {
  return recordFixedMigration(store, ['copy', 'switch']);
}

/** Steps whose first waits for `gate` (reporting progress after it), recording which replica ran each. */
function gatedSteps(replica: string, gate: Promise<void>, ran: string[]): (env: MigrationEnvironment) => Record<string, MigrationStepRun> {
  return () => ({
    copy: async (ctx) => {
      ran.push(`${replica} copy`);
      await gate;
      ctx.progress('copied');
      return 'copied';
    },
    switch: () => {
      ran.push(`${replica} switch`);
      return Promise.resolve('switched');
    },
  });
}

describe('migrations on replicas sharing a store', () => {
  it('run on one replica only: the others neither start, resume nor retry it', async () => {
    const ran: string[] = [];
    let open = (): void => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const [one, two] = stores.map((store, i) => new MigrationRunner(environment(store), undefined, undefined, gatedSteps(`replica ${i}`, gate, ran))) as [MigrationRunner, MigrationRunner];
    const migration = recordMigration(stores[0]!);
    expect(one.start(migration, 'key')).toBe(true);
    expect(two.start(migration)).toBe(false);
    expect(two.resumeUnfinished()).toBe(0);
    expect(() => two.retry('default', migration.id)).toThrow(/is running on another cairn replica \(pid \d+ on .+\)/);
    open();
    await one.settled(migration.id);
    expect(ran).toEqual(['replica 0 copy', 'replica 0 switch']);
    expect(stores[1]!.platformMigrations.require('default', migration.id).status).toBe('succeeded');
    // Done and given back: nothing is left to resume anywhere, not even from a stale read of it.
    expect(two.resumeUnfinished()).toBe(0);
    expect(migration.status).toBe('pending');
    expect(two.start(migration)).toBe(false);
    expect(ran).toEqual(['replica 0 copy', 'replica 0 switch']);
    await Promise.all([one.stop(), two.stop()]);
  });

  it("resumes on another replica a migration whose replica stopped renewing, and refuses the stopped run's late writes", async () => {
    const ran: string[] = [];
    const errors: unknown[] = [];
    let open = (): void => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const ttlMs = 300;
    const stalled = new MigrationRunner(
      environment(stores[0]!),
      (_migration, error) => errors.push(error),
      new MigrationClaims(stores[0]!.leases, 'stalled', ttlMs),
      gatedSteps('stalled', gate, ran),
    );
    const other = new MigrationRunner(environment(stores[1]!), undefined, new MigrationClaims(stores[1]!.leases, 'other', ttlMs), gatedSteps('other', Promise.resolve(), ran));
    const migration = recordMigration(stores[0]!);
    expect(stalled.start(migration, 'key')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The process hangs (no timers run) past its claim…
    const hungUntil = Date.now() + 4 * ttlMs;
    while (Date.now() < hungUntil) {
      // busy in its own code
    }
    // …and the other replica's next round finds the migration unclaimed and resumes it.
    expect(other.resumeUnfinished()).toBe(1);
    await other.settled(migration.id);
    expect(stores[1]!.platformMigrations.require('default', migration.id).status).toBe('succeeded');
    // The stalled run wakes: what it writes now is refused, and the record stays the other's.
    open();
    await stalled.settled(migration.id);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(LeaseLostError);
    expect(String(errors[0])).toMatch(/write refused: stalled no longer holds the migration .+ lease/);
    expect(ran).toEqual(['stalled copy', 'other copy', 'other switch']);
    const final = stores[0]!.platformMigrations.require('default', migration.id);
    expect(final.status).toBe('succeeded');
    expect(final.steps.map((step) => [step.name, step.status, step.detail])).toEqual([
      ['copy', 'succeeded', 'copied'],
      ['switch', 'succeeded', 'switched'],
    ]);
    await Promise.all([stalled.stop(), other.stop()]);
  });
});
