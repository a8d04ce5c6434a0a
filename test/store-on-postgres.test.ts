/**
 * @module The store on PostgreSQL (CAIRN_STORE=postgres://…, issue #20): what the connection adds to
 * SQLite's behaviour — a failed write inside a transaction undoes only itself, a transaction a
 * failed read spoiled is refused at COMMIT rather than committed in part, two stores on
 * one database (two replicas) see each other's commits and take turns writing, and the settings
 * are checked with errors that name what is wrong and never repeat a password. A process stopped
 * inside a transaction does not hold up the others' writes for longer than the server lets it.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openStateDatabase, storeEngineOf } from '../src/store/open-connection.js';
import { PgConnection } from '../src/store/pg/pg-connection.js';
import { IDLE_IN_TRANSACTION_TIMEOUT_MS, SyncPgClient } from '../src/store/pg/sync-client.js';
import { SHARD_LEASE_TTL_MS, ShardOwnership } from '../src/reconcile/shard-ownership.js';
import type { ReconcileContext } from '../src/reconcile/context.js';
import { Store } from '../src/store/store.js';
import { postgresStoreFor } from './support/store-engine.js';

const adminUrl = inject('postgresAdminUrl');
const scratch = mkdtempSync(join(tmpdir(), 'cairn-store-pg-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A fresh database of the postgres project's server, as every data dir there gets (store-engine.ts). */
const freshDatabase = (name: string): string => postgresStoreFor(join(scratch, name));

/** Closes a connection whose session the server may have ended (idle in a transaction too long). */
function closeEndedSession(connection: PgConnection): void {
  try {
    connection.close();
  } catch {
    // its session is already gone
  }
}

/**
 * A replica's store on a fresh database, and another replica's long write (an apply of
 * thousands): `holdWriteLock` opens its transaction, which holds the write lock until the server
 * ends it, 2.5 s later.
 */
function withLongWriteElsewhere(name: string, test: (store: Store, holdWriteLock: () => void) => void): void {
  const url = freshDatabase(name);
  const store = Store.open(join(scratch, name), { store: url });
  const writer = new PgConnection(new SyncPgClient(url, { idleInTransactionTimeoutMs: 2_500 }));
  try {
    test(store, () => writer.exec('BEGIN IMMEDIATE'));
  } finally {
    store.close();
    closeEndedSession(writer);
  }
}

/** Shard ownership hooks for tests that only look at the leases. */
const NO_HOOKS = { contextFor: () => ({}) as ReconcileContext, gained: () => undefined, dropped: () => undefined };

const PROVIDER = { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'sandbox' }, spec: { vendor: 'sandbox' } } as const;

describe('the store on PostgreSQL', () => {
  it('undoes only the statement that failed inside a transaction, as SQLite does', () => {
    const { connection } = openStateDatabase(scratch, freshDatabase('only_the_statement'));
    try {
      connection.transaction(() => {
        connection.prepare(`INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)`).run('t1', 'one', 'now');
        expect(() => connection.prepare(`INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)`).run('t1', 'again', 'now')).toThrow(/UNIQUE constraint failed/);
        connection.prepare(`INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)`).run('t2', 'two', 'now');
      }).immediate();
      const names = connection.prepare(`SELECT name FROM tenants WHERE id IN ('t1', 't2') ORDER BY id`).all() as Array<{ name: string }>;
      expect(names.map((row) => row.name)).toEqual(['one', 'two']);
      expect(() => connection.transaction(() => {
        connection.prepare(`INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)`).run('t3', 'three', 'now');
        throw new Error('changed my mind');
      }).immediate()).toThrow('changed my mind');
      expect(connection.prepare(`SELECT COUNT(*) AS n FROM tenants WHERE id = 't3'`).get()).toEqual({ n: 0 });
    } finally {
      connection.close();
    }
  });

  it('undoes a nested transaction that failed, and only it, whether it wrote first or only read', () => {
    const { connection } = openStateDatabase(scratch, freshDatabase('nested'));
    const insert = connection.prepare(`INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)`);
    try {
      connection.transaction(() => {
        insert.run('n1', 'outer', 'now');
        expect(() => connection.transaction(() => {
          insert.run('n2', 'inner', 'now');
          connection.transaction(() => insert.run('n3', 'innermost', 'now'))();
          throw new Error('the inner one changed its mind');
        })()).toThrow('changed its mind');
        expect(() => connection.transaction(() => {
          connection.prepare(`SELECT COUNT(*) AS n FROM tenants`).get();
          throw new Error('read, then changed its mind');
        })()).toThrow('read, then');
        connection.transaction(() => {
          connection.prepare(`SELECT COUNT(*) AS n FROM tenants`).get();
          expect(() => insert.run('n1', 'again', 'now')).toThrow(/UNIQUE constraint failed/);
          insert.run('n4', 'after a failed write', 'now');
        })();
        insert.run('n5', 'outer again', 'now');
      }).immediate();
      const ids = connection.prepare(`SELECT id FROM tenants WHERE id LIKE 'n%' ORDER BY id`).all() as Array<{ id: string }>;
      expect(ids.map((row) => row.id)).toEqual(['n1', 'n4', 'n5']);
    } finally {
      connection.close();
    }
  });

  it('refuses to commit a transaction a failed read spoiled, and keeps none of it', () => {
    const { connection } = openStateDatabase(scratch, freshDatabase('spoiled'));
    try {
      expect(() => connection.transaction(() => {
        connection.prepare(`INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)`).run('t4', 'four', 'now');
        expect(() => connection.prepare(`SELECT 1 / (COUNT(*) - COUNT(*)) AS n FROM tenants`).get()).toThrow(/division by zero/);
      }).immediate()).toThrow(/rolled back, not committed/);
      expect(connection.inTransaction).toBe(false);
      expect(connection.prepare(`SELECT COUNT(*) AS n FROM tenants WHERE id = 't4'`).get()).toEqual({ n: 0 });
    } finally {
      connection.close();
    }
  });

  it('lets two stores on one database (two replicas) see each other and take turns writing', () => {
    const url = freshDatabase('two_replicas');
    const one = Store.open(join(scratch, 'one'), { store: url });
    const two = Store.open(join(scratch, 'two'), { store: url });
    try {
      expect(one.engine).toBe('postgres');
      // The data dir is made all the same, private: the master key file and sealed backups live there.
      expect(statSync(join(scratch, 'one')).mode & 0o777).toBe(0o700);
      const { results } = one.resources.apply('default', 'cli', [PROVIDER]);
      const uid = results[0]!.uid;
      expect(two.resources.get(uid)?.name).toBe('sandbox');
      // A transaction holds the write lock to its end: the other replica's transaction waits for it.
      const before = two.resources.revision();
      one.transaction(() => {
        one.resources.touch(uid);
        expect(two.resources.revision()).toBe(before); // not committed yet: the other sees the old revision
      });
      expect(two.resources.revision()).toBeGreaterThan(before);
    } finally {
      one.close();
      two.close();
    }
  });

  it('ends the session of a process stopped inside a transaction, so the others write again well within a shard lease', () => {
    const url = freshDatabase('stopped_in_transaction');
    openStateDatabase(join(scratch, 'stopped'), url).connection.close(); // the schema
    const paused = new PgConnection(new SyncPgClient(url, { idleInTransactionTimeoutMs: 500 }));
    const other = new PgConnection(new SyncPgClient(url, { statementTimeoutMs: 10_000 }));
    try {
      // A replica's open commit group holding the write lock, then nothing: its process is stopped.
      paused.exec('BEGIN IMMEDIATE');
      paused.prepare(`INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)`).run('stale', 'stale', 'now');
      const started = Date.now();
      other.transaction(() => other.prepare(`INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)`).run('live', 'live', 'now')).immediate();
      expect(Date.now() - started).toBeLessThan(5_000);
      // Resumed, it finds its session ended and what it wrote in it rolled back.
      expect(() => paused.exec('COMMIT')).toThrow(/PostgreSQL/);
      const ids = other.prepare(`SELECT id FROM tenants WHERE id IN ('stale', 'live') ORDER BY id`).all() as Array<{ id: string }>;
      expect(ids.map((row) => row.id)).toEqual(['live']);
      expect(IDLE_IN_TRANSACTION_TIMEOUT_MS).toBeLessThanOrEqual(SHARD_LEASE_TTL_MS / 2);
    } finally {
      other.close();
      closeEndedSession(paused);
    }
  }, 30_000);

  it("keeps the leases of a replica waiting on another's write lock past their TTL, under the same tokens", () => {
    withLongWriteElsewhere('renewed_while_waiting', (store, holdWriteLock) => {
      const ttlMs = 900;
      const held = store.shardLeases.pass('waiting', [], ttlMs).held;
      expect(held).toHaveLength(32);
      store.shardLeases.renewWhileBusy('waiting', held, ttlMs);
      expect(store.leases.tryAcquire('singletons', 'waiting', ttlMs).acquired).toBe(true);
      store.leases.renewWhileBusy('singletons', 'waiting', ttlMs);
      holdWriteLock();
      const started = Date.now();
      // The calling thread blocks here, running no timers, for almost three TTLs.
      store.transaction(() => store.tenants.findOrCreate('after-the-wait'));
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThan(2 * ttlMs);
      const now = Date.now();
      expect(store.shardLeases.held('waiting', now)).toEqual(held);
      expect(store.shardLeases.liveReplicas(now).map((replica) => replica.holder)).toEqual(['waiting']);
      expect(store.leases.activeHolder('singletons')?.holder).toBe('waiting');
    });
  }, 30_000);

  it('stops renewing, while it waits, a shard the replica dropped (a write under it was fenced, say)', () => {
    withLongWriteElsewhere('dropped_while_waiting', (store, holdWriteLock) => {
      const ownership = new ShardOwnership(store, 'dropping', 900, NO_HOOKS);
      try {
        ownership.pass();
        expect(ownership.held()).toHaveLength(32);
        ownership.drop(5);
        holdWriteLock();
        store.transaction(() => store.tenants.findOrCreate('after-the-wait'));
        const renewed = store.shardLeases.held('dropping', Date.now()).map((lease) => lease.shard);
        expect(renewed).toHaveLength(31);
        expect(renewed).not.toContain(5);
      } finally {
        ownership.stop();
      }
    });
  }, 30_000);

  it('dates the leases of a pass that waited for the write lock from when it got it, not from before the wait', () => {
    withLongWriteElsewhere('pass_after_wait', (store, holdWriteLock) => {
      const ownership = new ShardOwnership(store, 'passing', 900, NO_HOOKS);
      try {
        ownership.pass();
        const before = ownership.held();
        expect(before).toHaveLength(32);
        holdWriteLock();
        ownership.pass(); // waits almost three TTLs for the lock, then renews
        expect(ownership.held()).toEqual(before);
        expect(store.shardLeases.held('passing', Date.now())).toEqual(before);
      } finally {
        ownership.stop();
      }
    });
  }, 30_000);

  it('lets the leases of a replica that stops calling the database run out (a hung process loses them)', () => {
    const url = freshDatabase('hung_replica');
    const store = Store.open(join(scratch, 'hung'), { store: url });
    const ttlMs = 600;
    try {
      const held = store.shardLeases.pass('hung', [], ttlMs).held;
      store.shardLeases.renewWhileBusy('hung', held, ttlMs);
      const hungUntil = Date.now() + 3 * ttlMs;
      while (Date.now() < hungUntil) {
        // busy in its own code: no statement, no timer
      }
      expect(store.shardLeases.held('hung', Date.now())).toEqual([]);
      // A lease another replica took under a new token is never renewed for the old holder.
      const taken = store.shardLeases.pass('other', [], 60_000).held;
      expect(taken.map((lease) => lease.token)).toEqual(held.map((lease) => lease.token + 1));
    } finally {
      store.close();
    }
  }, 30_000);

  it('refuses a setting that is neither sqlite nor a postgres URL, and an unreachable server, without repeating the password', () => {
    expect(storeEngineOf(undefined)).toBe('sqlite');
    expect(storeEngineOf('postgresql://x@h/db')).toBe('postgres');
    expect(() => storeEngineOf('mysql://admin:hunter2@db/cairn')).toThrow(/must be 'sqlite' or a postgres:\/\/ URL, not 'mysql:\/\/admin:\*\*\*@db\/cairn'/);
    const closedPort = adminUrl.replace(/:\d+\//, ':1/').replace(/:\/\/([^:]+):[^@]+@/, '://$1:hunter2@');
    expect(() => openStateDatabase(scratch, closedPort)).toThrow(/cannot reach the PostgreSQL store at postgres:\/\/cairn_test:\*\*\*@127\.0\.0\.1:1\//);
    expect(() => openStateDatabase(scratch, closedPort)).not.toThrow(/hunter2/);
  });
});
