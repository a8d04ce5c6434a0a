/**
 * @module The runtime half of the shared driver contract (see driver.contract.ts): databases
 * and apps created, found by key and id, created twice, updated, connected to, and deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDesired, DatabaseDesired, Placement, RuntimeDriver } from './contract.js';
import { contractKey, waitUntil, type ContractTiming } from './waiting.contract.js';

export interface RuntimeDriverFixture {
  driver: RuntimeDriver;
  /** A server the runtime can place things on. */
  placement: Placement;
  /** Called after the contract closed the driver: releases whatever else the factory made. */
  cleanup(): Promise<void>;
}

export interface RuntimeContractOptions extends ContractTiming {
  /** The database engine and version to test with (default postgresql 16). */
  database?: { type: 'postgresql' | 'mongodb'; version: string };
}

export function runRuntimeDriverContract(name: string, makeDriver: () => Promise<RuntimeDriverFixture>, options: RuntimeContractOptions = {}): void {
  describe(`${name}: runtime driver contract`, () => runtimeCases(makeDriver, options));
}

function runtimeCases(makeDriver: () => Promise<RuntimeDriverFixture>, options: RuntimeContractOptions): void {
  const settleMs = options.settleTimeoutMs ?? 10_000;
  const engine = options.database ?? { type: 'postgresql', version: '16' };
  let fixture: RuntimeDriverFixture;
  let driver: RuntimeDriver;
  const databases: string[] = [];
  const apps: string[] = [];

  beforeAll(async () => {
    fixture = await makeDriver();
    driver = fixture.driver;
  });

  afterAll(async () => {
    if (!fixture) return;
    await Promise.allSettled(apps.map((id) => driver.apps.delete(id)));
    await Promise.allSettled(databases.map((id) => driver.databases.delete(id)));
    await fixture.driver.close();
    await fixture.cleanup();
  });

  function database(label: string, storageGb: number | null = engine.type === 'postgresql' ? 10 : null): DatabaseDesired {
    return { name: `contract-${label}`, type: engine.type, version: engine.version, storageGb, placement: fixture.placement };
  }

  function app(label: string, env: Record<string, string> = { GREETING: 'hello' }): AppDesired {
    return {
      name: `contract-${label}`, placement: fixture.placement, source: { image: 'example.invalid/contract:1' },
      build: null, command: 'serve', port: 8080, env, healthCheckPath: '/healthz', state: 'running',
    };
  }

  it('observes unknown database and app keys as null', async () => {
    expect(await driver.databases.observe({ key: contractKey('db-unknown') })).toBeNull();
    expect(await driver.apps.observe({ key: contractKey('app-unknown') })).toBeNull();
  });

  it('creates a database once per key and finds it by key and by id', async () => {
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

  it('gives connection details of a database', async () => {
    const created = await driver.databases.create(contractKey('conn'), database('conn'));
    databases.push(created.id);
    const connection = await driver.databases.connection(created.id);
    expect(connection.uri.startsWith(`${engine.type}://`)).toBe(true);
    expect(connection.uri).toContain(`:${connection.port}/`);
    expect(connection.password).not.toBe('');
    expect(connection.database).not.toBe('');
  });

  it.skipIf(engine.type !== 'postgresql')('grows the storage of a database in place', async () => {
    const created = await driver.databases.create(contractKey('grow'), database('grow', 10));
    databases.push(created.id);
    expect((await driver.databases.update(created.id, database('grow', 20))).storageGb).toBe(20);
  });

  it('deletes a database idempotently', async () => {
    const key = contractKey('db-delete');
    const created = await driver.databases.create(key, database('db-delete'));
    await driver.databases.delete(created.id);
    await driver.databases.delete(created.id);
    expect(await driver.databases.observe({ key, externalId: created.id })).toBeNull();
  });

  it('deploys an app once per key and counts a release per configuration change', async () => {
    const key = contractKey('app');
    const created = await driver.apps.create(key, app('app'));
    apps.push(created.id);
    expect(created).toMatchObject({ clientToken: key, serverId: fixture.placement.serverExternalId });
    expect((await driver.apps.create(key, app('app'))).id).toBe(created.id);
    expect((await driver.apps.observe({ key }))?.id).toBe(created.id);
    const same = await driver.apps.update(created.id, app('app'));
    expect([same.release, same.releaseDigest]).toEqual([created.release, created.releaseDigest]);
    const changed = await driver.apps.update(created.id, app('app', { GREETING: 'bonjour' }));
    expect(changed.release).toBeGreaterThan(created.release);
    expect(changed.releaseDigest).not.toBe(created.releaseDigest);
    await waitUntil(() => driver.apps.observe({ key, externalId: created.id }), (a) => a?.status === 'running', settleMs, 'app to be running');
  });

  it('deletes an app idempotently', async () => {
    const key = contractKey('app-delete');
    const created = await driver.apps.create(key, app('app-delete'));
    await driver.apps.delete(created.id);
    await driver.apps.delete(created.id);
    expect(await driver.apps.observe({ key, externalId: created.id })).toBeNull();
  });
}
