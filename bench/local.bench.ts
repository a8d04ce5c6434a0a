/**
 * @module Benchmark of the local vendor on this host: time from apply to Ready of one PostgreSQL
 * database and of one app (a Node HTTP server from a path, health-checked), the time of a deploy
 * with a health check (a changed spec rolled out until its deployment succeeded), and pg_dump /
 * pg_restore throughput of a database of about 100 MB (incompressible-ish hex text).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localVendor } from '../src/drivers/local/index.js';
import { postgresInstallations } from '../src/drivers/local/postgres-installations.js';
import type { AnyManifest } from '../src/model/resource.js';
import { DEFAULT_TENANT } from '../src/model/resource.js';
import { Controller } from '../src/reconcile/controller.js';
import { isReadyAt } from '../src/reconcile/status-draft.js';
import { generateMasterKey } from '../src/secrets/master-key.js';
import { keyringDataKeys } from '../src/secrets/sealed-stream.js';
import { Store } from '../src/store/store.js';
import type { Benchmark } from './support/benchmark.js';
import { measureBackupAndRestore, rate, until, type ThroughputFigures } from './support/database-throughput.js';
import { seconds } from './support/figures.js';

const TIMEOUT_MS = 300_000;

export interface LocalResult extends ThroughputFigures {
  postgres: string;
  databaseReadyMs: number;
  appReadyMs: number;
  deployMs: number;
}

function manifest(kind: string, name: string, spec: Record<string, unknown>): AnyManifest {
  return { apiVersion: 'cairn.dev/v1', kind, metadata: { name, namespace: 'default' }, spec } as unknown as AnyManifest;
}

/** Applies manifests and waits until the last of them is Ready at its generation; returns the time taken. */
async function applyUntilReady(store: Store, manifests: AnyManifest[]): Promise<number> {
  const started = performance.now();
  store.resources.apply(DEFAULT_TENANT, 'api', manifests);
  const last = manifests[manifests.length - 1];
  if (!last) return 0;
  await until(`${last.kind}/${last.metadata.name} to be ready`, () => {
    const r = store.resources.find(DEFAULT_TENANT, { kind: last.kind, namespace: 'default', name: last.metadata.name });
    return r !== undefined && isReadyAt(r.status, r.generation);
  }, TIMEOUT_MS);
  return performance.now() - started;
}

async function reconcileFigures(root: string, version: string, progress: (line: string) => void): Promise<Pick<LocalResult, 'databaseReadyMs' | 'appReadyMs' | 'deployMs'>> {
  const dataDir = join(root, 'state');
  const appDir = join(root, 'app');
  mkdirSync(appDir);
  writeFileSync(join(appDir, 'server.js'), "require('http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');\n");
  const store = Store.open(dataDir);
  const controller = new Controller(store, { dataDir, pollMs: 20, feedIntervalMs: 10 });
  controller.start();
  try {
    await applyUntilReady(store, [manifest('Provider', 'host', { vendor: 'local' }), manifest('Server', 'host', { provider: 'host', region: 'local', size: 'host' })]);
    const databaseReadyMs = await applyUntilReady(store, [manifest('Database', 'bench-db', { type: 'postgresql', server: 'host', version, storageGb: 1 })]);
    progress(`database ready in ${seconds(databaseReadyMs)}`);
    const app = (env: Record<string, string>): AnyManifest =>
      manifest('App', 'bench-app', { server: 'host', source: { path: appDir }, command: 'node server.js', env, databases: ['bench-db'], healthCheck: { path: '/' } });
    const appReadyMs = await applyUntilReady(store, [app({ RUN: '1' })]);
    progress(`app ready in ${seconds(appReadyMs)}`);
    const deployMs = await applyUntilReady(store, [app({ RUN: '2' })]);
    progress(`deploy with health check in ${seconds(deployMs)}`);
    return { databaseReadyMs, appReadyMs, deployMs };
  } finally {
    await controller.stop();
    // Leave nothing running: delete what was made through the drivers themselves.
    const runtime = await localVendor.createRuntimeDriver({ providerName: 'host', spec: { vendor: 'local' }, credentials: undefined, dataDir, requestTimeoutMs: 10_000, dataKeys: store.secrets });
    for (const r of store.resources.list({ tenant: DEFAULT_TENANT, kind: 'Database' })) if (r.status.externalId) await runtime.databases.delete(r.status.externalId);
    await runtime.close();
    store.close();
  }
}

async function throughputFigures(root: string, version: string, progress: (line: string) => void): Promise<ThroughputFigures> {
  const dataDir = join(root, 'throughput');
  const master = generateMasterKey();
  const config = { providerName: 'host', spec: { vendor: 'local' }, credentials: undefined, dataDir, requestTimeoutMs: 10_000, dataKeys: keyringDataKeys({ active: master, keys: [master] }) };
  const cloud = await localVendor.createCloudDriver(config);
  const runtime = await localVendor.createRuntimeDriver(config);
  let databaseId: string | undefined;
  try {
    const server = await cloud.servers.create('bench-host', { name: 'host', region: 'local', size: 'host', image: 'debian-12' });
    const password = 'bench-password-0123456789';
    const db = await runtime.databases.create('bench-db', { name: 'bench-db', type: 'postgresql', version, storageGb: 1, placement: { serverExternalId: server.id, serverAddress: '127.0.0.1' }, password });
    databaseId = db.id;
    await until('the database', async () => (await runtime.databases.observe({ key: 'bench-db', externalId: db.id }))?.status === 'available', TIMEOUT_MS);
    return await measureBackupAndRestore(runtime.databases, { id: db.id, key: 'bench-db', password }, progress, TIMEOUT_MS);
  } finally {
    if (databaseId) await runtime.databases.delete(databaseId);
    await runtime.close();
    await cloud.close();
  }
}

async function run(progress: (line: string) => void): Promise<LocalResult> {
  const installed = postgresInstallations()[0];
  if (!installed) throw new Error('this host has no PostgreSQL server installed; the local benchmark needs one');
  const root = mkdtempSync(join(tmpdir(), 'cairn-bench-local-'));
  try {
    const reconcile = await reconcileFigures(root, installed.major, progress);
    const throughput = await throughputFigures(root, installed.major, progress);
    return { postgres: installed.version, ...reconcile, ...throughput };
  } finally {
    if (process.env.BENCH_KEEP_DIR !== '1') rmSync(root, { recursive: true, force: true });
    else progress(`kept ${root}`);
  }
}

function format(r: LocalResult): string[] {
  return [
    `PostgreSQL ${r.postgres} on this host`,
    `  apply → Ready, one database (initdb, start, role):   ${seconds(r.databaseReadyMs)}`,
    `  apply → Ready, one app (start, health check, switch): ${seconds(r.appReadyMs)}`,
    `  deploy with a health check (changed spec → succeeded): ${seconds(r.deployMs)}`,
    `  backup of ${(r.databaseBytes / 1e6).toFixed(0)} MB (pg_dump -Fc, SHA-256, sealed): ${seconds(r.backupMs)}, ${rate(r.databaseBytes, r.backupMs)}; dump ${(r.dumpBytes / 1e6).toFixed(0)} MB`,
    `  restore (verify pass, then unseal + checksum into pg_restore --single-transaction): ${seconds(r.restoreMs)}, ${rate(r.databaseBytes, r.restoreMs)}`,
  ];
}

export const localBenchmark: Benchmark<LocalResult> = {
  name: 'local',
  description: 'the local vendor: apply → Ready of a database and an app, a deploy, backup/restore of 100 MB',
  run,
  format,
};
