/**
 * @module vitest setup of the `postgres` project: every `Store.open` of a data dir runs on its own
 * fresh PostgreSQL database (the same one when that data dir is opened again), so the store's
 * suites, written for a data dir of their own, run unchanged against PostgreSQL.
 */
import { inject, vi } from 'vitest';
import { SyncPgClient } from '../../src/store/pg/sync-client.js';
import { Store, type StoreOptions } from '../../src/store/store.js';
import { postgresUrlFor } from './store-engine.js';

const adminUrl = inject('postgresAdminUrl');
const databases = new Map<string, string>();

function databaseFor(dataDir: string): string {
  let url = databases.get(dataDir);
  if (url === undefined) {
    url = postgresUrlFor(dataDir);
    const name = new URL(url).pathname.slice(1);
    const admin = new SyncPgClient(adminUrl);
    try {
      admin.exec(`CREATE DATABASE ${name}`);
    } finally {
      admin.close();
    }
    databases.set(dataDir, url);
  }
  return url;
}

const open = Store.open.bind(Store);
vi.spyOn(Store, 'open').mockImplementation((dataDir: string, options: StoreOptions = {}) =>
  open(dataDir, { ...options, store: options.store ?? databaseFor(dataDir) }),
);
