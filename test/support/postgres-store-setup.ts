/**
 * @module vitest setup of the `postgres` project: every `Store.open` of a data dir runs on its own
 * fresh PostgreSQL database (the same one when that data dir is opened again), so the store's
 * suites, written for a data dir of their own, run unchanged against PostgreSQL; so does every
 * `cairn` the tests spawn on a data dir.
 */
import { vi } from 'vitest';
import { Store, type StoreOptions } from '../../src/store/store.js';
import { setStoreEnvForDataDir } from './cairn-process.js';
import { postgresStoreFor, storeEnvFor } from './store-engine.js';

const open = Store.open.bind(Store);
vi.spyOn(Store, 'open').mockImplementation((dataDir: string, options: StoreOptions = {}) =>
  open(dataDir, { ...options, store: options.store ?? postgresStoreFor(dataDir) }),
);
setStoreEnvForDataDir(storeEnvFor);
