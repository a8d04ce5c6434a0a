/** @module Tests of how the state file is opened: every connection fsyncs each commit (WAL, synchronous FULL). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { durabilitySettings, openSqlite } from './sqlite.js';
import { Store } from './store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-sqlite-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('openSqlite', () => {
  it('runs every connection in WAL mode with synchronous = FULL, on a new file and on an existing one', () => {
    const first = openSqlite(dir);
    const second = openSqlite(dir); // the file exists and is already in WAL mode: another path through the setup
    try {
      expect(durabilitySettings(first)).toEqual({ journalMode: 'wal', synchronous: 'FULL' });
      expect(durabilitySettings(second)).toEqual({ journalMode: 'wal', synchronous: 'FULL' });
    } finally {
      first.close();
      second.close();
    }
  });

  it('is what the store runs with', () => {
    const store = Store.open(dir);
    try {
      expect(store.durability()).toEqual({ journalMode: 'wal', synchronous: 'FULL' });
    } finally {
      store.close();
    }
  });
});
