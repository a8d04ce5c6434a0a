/**
 * @module Test fixture for what a commit makes visible: a store on a fresh data dir, and a
 * second, read-only connection to the same state file that sees only what was committed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { AnyManifest } from '../model/resource.js';
import { STATE_FILE } from './sqlite.js';
import { Store } from './store.js';

/** A Provider manifest to write with. */
export const SANDBOX_PROVIDER: AnyManifest = { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'sandbox' }, spec: { vendor: 'sandbox' } };

export interface StoreWithReader {
  store: Store;
  /** Another connection, read-only: what it reads has been committed. */
  other: Database.Database;
  /** Closes both and removes the data dir. */
  close: () => void;
}

export function openStoreWithReader(prefix: string): StoreWithReader {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = Store.open(dir);
  const other = new Database(join(dir, STATE_FILE), { readonly: true });
  return {
    store,
    other,
    close: () => {
      other.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
