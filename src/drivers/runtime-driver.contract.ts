/**
 * @module The runtime half of the shared driver contract (see driver.contract.ts): databases
 * (created once per key, found by key and id, grown, reached through their endpoint, given new
 * passwords, backed up, restored, deleted) and apps (created once per key, redeployed by every
 * update, logging, deleted). Each case creates what it needs under fresh keys.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDesired, BackupObserved, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, Placement, RuntimeDriver } from './contract.js';
import { contractKey, waitUntil, type ContractTiming } from './waiting.contract.js';

export interface RuntimeDriverFixture {
  driver: RuntimeDriver;
  /** A server the runtime can place things on. */
  placement: Placement;
  /** Called after the contract closed the driver: releases whatever else the factory made. */
  cleanup(): Promise<void>;
  /**
   * Whether `password` lets the database's user in (a real engine connects; the sandbox asks its
   * login route). When given, the contract checks which password is in force.
   */
  passwordWorks?(databaseExternalId: string, endpoint: DatabaseEndpoint, password: string): Promise<boolean>;
}

export interface RuntimeContractOptions extends ContractTiming {
  /** The database engine and version to test with (default postgresql 16). */
  database?: { type: 'postgresql' | 'mongodb'; version: string };
  /**
   * What the test apps run (default: an image that the simulated sandbox does not really run).
   * A runtime that runs real processes gives a program that serves `healthCheckPath` on PORT.
   */
  app?: Pick<AppDesired, 'source' | 'build' | 'command' | 'healthCheckPath'>;
  /** The halves of the contract to run (default both): a runtime built in steps runs what it has. */
  parts?: ReadonlyArray<'databases' | 'apps'>;
}

export function runRuntimeDriverContract(name: string, makeDriver: () => Promise<RuntimeDriverFixture>, options: RuntimeContractOptions = {}): void {
  describe(`${name}: runtime driver contract`, () => runtimeCases(makeDriver, options));
}

/** A password as cairn makes them: 24 URL-safe characters. */
function newPassword(): string {
  return randomBytes(18).toString('base64url');
}

function runtimeCases(makeDriver: () => Promise<RuntimeDriverFixture>, options: RuntimeContractOptions): void {
  const parts = new Set(options.parts ?? ['databases', 'apps']);
  // A half not asked for is not registered at all (a skipped test would read as a gap in CI).
  const databaseCase = (title: string, body: () => Promise<void>): void => {
    if (parts.has('databases')) it(title, body);
  };
  const appCase = (title: string, body: () => Promise<void>): void => {
    if (parts.has('apps')) it(title, body);
  };
  const settleMs = options.settleTimeoutMs ?? 10_000;
  const engine = options.database ?? { type: 'postgresql', version: '16' };
  let fixture: RuntimeDriverFixture;
  let driver: RuntimeDriver;
  const databases: string[] = [];
  const backups: string[] = [];
  const apps: string[] = [];

  beforeAll(async () => {
    fixture = await makeDriver();
    driver = fixture.driver;
  });

  afterAll(async () => {
    if (!fixture) return;
    await Promise.allSettled(apps.map((id) => driver.apps.delete(id)));
    await Promise.allSettled(databases.map((id) => driver.databases.delete(id)));
    await Promise.allSettled(backups.map((id) => driver.databases.deleteBackup(id)));
    await fixture.driver.close();
    await fixture.cleanup();
  });

  function database(label: string, storageGb: number | null = engine.type === 'postgresql' ? 10 : null, password = newPassword()): DatabaseDesired {
    return { name: `contract-${label}`, type: engine.type, version: engine.version, storageGb, placement: fixture.placement, password };
  }

  function app(label: string, env: Record<string, string> = { GREETING: 'hello' }): AppDesired {
    const program = options.app ?? { source: { image: 'example.invalid/contract:1' }, build: null, command: 'serve', healthCheckPath: '/healthz' };
    return { name: `contract-${label}`, placement: fixture.placement, ...program, port: 8080, env, state: 'running' };
  }

  async function availableDatabase(label: string, desired = database(label)): Promise<DatabaseObserved> {
    const key = contractKey(label);
    const created = await driver.databases.create(key, desired);
    databases.push(created.id);
    await waitUntil(() => driver.databases.observe({ key, externalId: created.id }), (d) => d?.status === 'available', settleMs, `database ${label} to be available`);
    return created;
  }

  async function completedBackup(databaseId: string, label: string): Promise<{ key: string; backup: BackupObserved }> {
    const key = contractKey(label);
    const started = await driver.databases.createBackup(databaseId, key);
    backups.push(started.id);
    const backup = await waitUntil(() => driver.databases.observeBackup({ key, externalId: started.id }), (b) => b?.status === 'completed', settleMs, `backup ${label} to complete`);
    if (!backup) throw new Error(`backup ${label} vanished`);
    return { key, backup };
  }

  it('observes unknown database, backup and app keys as null', async () => {
    if (parts.has('databases')) {
      expect(await driver.databases.observe({ key: contractKey('db-unknown') })).toBeNull();
      expect(await driver.databases.observeBackup({ key: contractKey('backup-unknown') })).toBeNull();
    }
    if (parts.has('apps')) expect(await driver.apps.observe({ key: contractKey('app-unknown') })).toBeNull();
  });

  databaseCase('creates a database once per key and finds it by key and by id', async () => {
    const key = contractKey('db');
    const created = await driver.databases.create(key, database('db'));
    databases.push(created.id);
    expect(created).toMatchObject({ clientToken: key, serverId: fixture.placement.serverExternalId, type: engine.type });
    expect((await driver.databases.create(key, database('db'))).id).toBe(created.id);
    expect((await driver.databases.observe({ key }))?.id).toBe(created.id);
    expect((await driver.databases.observe({ key: contractKey('other'), externalId: created.id }))?.id).toBe(created.id);
    const available = await waitUntil(() => driver.databases.observe({ key, externalId: created.id }), (d) => d?.status === 'available', settleMs, 'database to be available');
    expect(available?.port).toBeGreaterThan(0);
  });

  databaseCase('gives the endpoint of a database, without its password', async () => {
    const desired = database('endpoint');
    const created = await driver.databases.create(contractKey('endpoint'), desired);
    databases.push(created.id);
    const endpoint = await driver.databases.endpoint(created.id);
    expect(Object.keys(endpoint).sort()).toEqual(['database', 'host', 'port', 'username']);
    expect(endpoint.port).toBeGreaterThan(0);
    for (const text of [endpoint.host, endpoint.username, endpoint.database]) expect(text).not.toBe('');
    expect(JSON.stringify(endpoint)).not.toContain(desired.password);
  });

  databaseCase('sets the password of a database, and setting the same one again succeeds', async () => {
    const first = newPassword();
    const second = newPassword();
    const created = await availableDatabase('password', database('password', undefined, first));
    await driver.databases.setPassword(created.id, second);
    await driver.databases.setPassword(created.id, second);
    if (!fixture.passwordWorks) return;
    const endpoint = await driver.databases.endpoint(created.id);
    expect(await fixture.passwordWorks(created.id, endpoint, second)).toBe(true);
    expect(await fixture.passwordWorks(created.id, endpoint, first)).toBe(false);
  });

  // Storage is a PostgreSQL setting (a MongoDB Database takes no storageGb): registered for PostgreSQL only, never skipped.
  if (parts.has('databases') && engine.type === 'postgresql') it('grows the storage of a database in place', async () => {
    const created = await driver.databases.create(contractKey('grow'), database('grow', 10));
    databases.push(created.id);
    expect((await driver.databases.update(created.id, database('grow', 20))).storageGb).toBe(20);
  });

  databaseCase('deletes a database idempotently', async () => {
    const key = contractKey('db-delete');
    const created = await driver.databases.create(key, database('db-delete'));
    await driver.databases.delete(created.id);
    await driver.databases.delete(created.id);
    expect(await driver.databases.observe({ key, externalId: created.id })).toBeNull();
  });

  databaseCase('backs up a database once per key; the backup completes with a size and a checksum', async () => {
    const db = await availableDatabase('backup');
    const key = contractKey('backup');
    const started = await driver.databases.createBackup(db.id, key);
    backups.push(started.id);
    expect(started).toMatchObject({ clientToken: key, databaseId: db.id });
    expect((await driver.databases.createBackup(db.id, key)).id).toBe(started.id);
    const done = await waitUntil(() => driver.databases.observeBackup({ key, externalId: started.id }), (b) => b?.status === 'completed', settleMs, 'backup to complete');
    expect(done?.sizeBytes).toBeGreaterThan(0);
    expect(done?.checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Number.isNaN(Date.parse(done?.completedAt ?? ''))).toBe(false);
    expect(done?.message).toBeNull();
  });

  databaseCase('finds a backup by key when its id is lost, and keeps it after its database is gone', async () => {
    const db = await availableDatabase('backup-found');
    const { key, backup } = await completedBackup(db.id, 'backup-found');
    expect((await driver.databases.observeBackup({ key, externalId: `gone-${randomUUID()}` }))?.id).toBe(backup.id);
    expect((await driver.databases.observeBackup({ key }))?.id).toBe(backup.id);
    await driver.databases.delete(db.id);
    expect(await driver.databases.observeBackup({ key: contractKey('other'), externalId: backup.id })).toEqual(backup);
  });

  databaseCase('deletes a backup idempotently', async () => {
    const db = await availableDatabase('backup-delete');
    const { key, backup } = await completedBackup(db.id, 'backup-delete');
    await driver.databases.deleteBackup(backup.id);
    await driver.databases.deleteBackup(backup.id);
    expect(await driver.databases.observeBackup({ key, externalId: backup.id })).toBeNull();
  });

  databaseCase('restores a backup into a database once per key', async () => {
    const db = await availableDatabase('restore');
    const { backup } = await completedBackup(db.id, 'restore');
    const key = contractKey('restore');
    const restoring = await driver.databases.restore(db.id, backup.id, key);
    expect(restoring.id).toBe(db.id);
    await waitUntil(() => driver.databases.observe({ key: db.clientToken, externalId: db.id }), (d) => d?.status === 'available', settleMs, 'restored database to be available');
    const again = await driver.databases.restore(db.id, backup.id, key);
    expect([again.id, again.status]).toEqual([db.id, 'available']);
  });

  appCase('deploys an app once per key, and every update rolls out a new release', async () => {
    const key = contractKey('app');
    const created = await driver.apps.create(key, app('app'));
    apps.push(created.id);
    expect(created).toMatchObject({ clientToken: key, serverId: fixture.placement.serverExternalId, commit: null });
    expect((await driver.apps.create(key, app('app'))).id).toBe(created.id);
    expect((await driver.apps.observe({ key }))?.id).toBe(created.id);
    const same = await driver.apps.update(created.id, app('app'));
    expect(same.release).toBeGreaterThan(created.release);
    expect(same.releaseDigest).toBe(created.releaseDigest);
    const changed = await driver.apps.update(created.id, app('app', { GREETING: 'bonjour' }));
    expect(changed.release).toBeGreaterThan(same.release);
    expect(changed.releaseDigest).not.toBe(created.releaseDigest);
    await waitUntil(() => driver.apps.observe({ key, externalId: created.id }), (a) => a?.status === 'running', settleMs, 'app to be running');
  });

  appCase('reads the logs of an app, oldest first, by tail and since', async () => {
    const key = contractKey('logs');
    const created = await driver.apps.create(key, app('logs'));
    apps.push(created.id);
    await waitUntil(() => driver.apps.observe({ key, externalId: created.id }), (a) => a?.status === 'running', settleMs, 'app to be running');
    const lines = await driver.apps.logs(created.id, {});
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) {
      expect(['stdout', 'stderr', 'system']).toContain(l.stream);
      expect(Number.isNaN(Date.parse(l.ts))).toBe(false);
      expect(typeof l.line).toBe('string');
    }
    const times = lines.map((l) => Date.parse(l.ts));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const last = lines[lines.length - 1];
    expect(await driver.apps.logs(created.id, { tail: 1 })).toEqual([last]);
    const since = await driver.apps.logs(created.id, { since: last?.ts ?? '' });
    expect(since).toContainEqual(last);
    expect(since.every((l) => Date.parse(l.ts) >= Date.parse(last?.ts ?? ''))).toBe(true);
  });

  appCase('deletes an app idempotently', async () => {
    const key = contractKey('app-delete');
    const created = await driver.apps.create(key, app('app-delete'));
    await driver.apps.delete(created.id);
    await driver.apps.delete(created.id);
    expect(await driver.apps.observe({ key, externalId: created.id })).toBeNull();
  });
}
