/**
 * @module Test fixture for the record stores: a fresh data dir with a provider, a server, a
 * database and an app applied, removed again after each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyManifest } from '../model/resource.js';
import { Store } from './store.js';

export interface RecordsFixture {
  dir: string;
  store: Store;
  databaseUid: string;
  appUid: string;
  serverUid: string;
  close(): void;
}

const manifests: AnyManifest[] = [
  { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'sandbox' }, spec: { vendor: 'sandbox' } },
  { apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name: 'web-1' }, spec: { provider: 'sandbox', region: 'eu-1', size: 'small' } },
  { apiVersion: 'cairn.dev/v1', kind: 'Database', metadata: { name: 'shop-db' }, spec: { type: 'postgresql', server: 'web-1', version: '16', storageGb: 10 } },
  { apiVersion: 'cairn.dev/v1', kind: 'App', metadata: { name: 'shop' }, spec: { server: 'web-1', source: { image: 'shop:1' } } },
];

export function openRecordsFixture(): RecordsFixture {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-records-'));
  const store = Store.open(dir);
  const outcome = store.resources.apply('default', 'api', manifests);
  const uidOf = (kind: string): string => outcome.results.find((r) => r.kind === kind)?.uid ?? '';
  return {
    dir,
    store,
    databaseUid: uidOf('Database'),
    appUid: uidOf('App'),
    serverUid: uidOf('Server'),
    close: () => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
