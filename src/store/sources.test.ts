/**
 * @module Git sources in the store: a settings change that alters what the source applies (ref,
 * path, prune turned on, suspension) asks the sync loop for a sync at once; one that does not
 * (the interval, prune turned off) waits for the next interval. Credentials and the webhook
 * secret are stored sealed, never in the clear.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STATE_FILE } from './sqlite.js';
import { Store } from './store.js';
import { itOnSqliteFile } from '../../test/support/store-engine.js';

let dir: string;
let store: Store;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-sources-'));
  store = Store.open(dir);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GitSources', () => {
  it('asks for a sync when ref, path, prune (on) or suspension change, and not for the interval or prune off', () => {
    const { id } = store.sources.create('default', { name: 'infra', url: 'https://git.invalid/x.git', ref: 'main', path: '', intervalSeconds: 60, prune: true }, 'secret');
    const requestsAfter = (changes: Parameters<Store['sources']['update']>[1]): number => store.sources.update(id, changes).syncRequests;

    let requests = store.sources.get(id)!.syncRequests;
    expect(requestsAfter({ intervalSeconds: 30 })).toBe(requests);
    expect(requestsAfter({ prune: false })).toBe(requests);
    expect(requestsAfter({ ref: 'main' })).toBe(requests);
    for (const changes of [{ ref: 'release' }, { path: 'deploy' }, { prune: true }, { suspended: true }, { suspended: false }]) {
      requests += 1;
      expect(requestsAfter(changes), JSON.stringify(changes)).toBe(requests);
    }
  });

  itOnSqliteFile('keeps the webhook secret and credentials sealed, and gives them back', () => {
    const secret = 'webhook-secret-in-the-clear';
    const source = store.sources.create('default', {
      name: 'private', url: 'https://git.invalid/p.git', ref: 'main', path: '', intervalSeconds: 60, prune: true,
      credentials: { type: 'token', token: 'token-in-the-clear' },
    }, secret);
    expect(store.sources.webhookSecret(source)).toBe(secret);
    expect(store.sources.credentials(source)).toEqual({ type: 'token', token: 'token-in-the-clear' });
    store.close();
    const raw = new Database(join(dir, STATE_FILE), { readonly: true });
    try {
      const dump = JSON.stringify(raw.prepare(`SELECT * FROM secrets`).all()) + JSON.stringify(raw.prepare(`SELECT * FROM sources`).all());
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain('token-in-the-clear');
    } finally {
      raw.close();
      store = Store.open(dir);
    }
  });
});
