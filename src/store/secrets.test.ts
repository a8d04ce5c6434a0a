/** @module Tests of secrets at rest in the store: encryption on disk, identity binding, lazy key loading, master key rotation and crashes during it. */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readKeyringFile } from '../secrets/keyring-file.js';
import { masterKeyId } from '../secrets/master-key.js';
import { Store } from './store.js';
import { itOnSqliteFile, storedBytes, storeEngineUnderTest } from '../../test/support/store-engine.js';

let dir: string;
let stores: Store[];
const open = (env: NodeJS.ProcessEnv = {}): Store => {
  const store = Store.open(dir, { env });
  stores.push(store);
  return store;
};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-secrets-'));
  stores = [];
});
afterEach(() => {
  for (const store of stores) store.close();
  rmSync(dir, { recursive: true, force: true });
});

const keyFile = (): string => join(dir, 'master.key');

describe('store.secrets', () => {
  itOnSqliteFile('putIfAbsent stores only the first value under an identity, sealed like put', () => {
    const store = open();
    expect(store.secrets.putIfAbsent('default', 'ssh-key-pair', 'uid-1', 'first')).toBe(true);
    expect(store.secrets.putIfAbsent('default', 'ssh-key-pair', 'uid-1', 'second')).toBe(false);
    expect(store.secrets.get('default', 'ssh-key-pair', 'uid-1')).toBe('first');
    expect(store.secrets.putIfAbsent('acme', 'ssh-key-pair', 'uid-1', 'other tenant')).toBe(true);
    expect(store.secrets.get('acme', 'ssh-key-pair', 'uid-1')).toBe('other tenant');
    const db = new Database(join(dir, 'cairn.db'), { readonly: true });
    const row = db.prepare(`SELECT ciphertext FROM secrets WHERE tenant = 'default'`).get() as { ciphertext: string };
    db.close();
    expect(row.ciphertext).toMatch(/^v1\./);
    expect(row.ciphertext).not.toContain('first');
  });

  it('puts, gets, replaces and deletes values per tenant, purpose and name', () => {
    const store = open();
    expect(store.secrets.get('default', 'database-password', 'db-1')).toBeUndefined();
    store.secrets.put('default', 'database-password', 'db-1', 'first');
    store.secrets.put('acme', 'database-password', 'db-1', 'acme-value');
    store.secrets.put('default', 'database-password', 'db-1', 'second');
    expect(store.secrets.get('default', 'database-password', 'db-1')).toBe('second');
    expect(store.secrets.get('acme', 'database-password', 'db-1')).toBe('acme-value');
    expect(store.secrets.get('default', 'provider-credentials', 'db-1')).toBeUndefined();
    store.secrets.delete('default', 'database-password', 'db-1');
    store.secrets.delete('default', 'database-password', 'db-1');
    expect(store.secrets.get('default', 'database-password', 'db-1')).toBeUndefined();
    expect(store.secrets.get('acme', 'database-password', 'db-1')).toBe('acme-value');
    expect(open().secrets.get('acme', 'database-password', 'db-1')).toBe('acme-value');
  });

  it('creates no key file until a secret is stored', () => {
    const store = open();
    store.resources.list({ tenant: 'default' });
    expect(store.secrets.get('default', 'database-password', 'nothing')).toBeUndefined();
    expect(existsSync(keyFile())).toBe(false);
    store.secrets.put('default', 'database-password', 'db-1', 'x');
    expect(existsSync(keyFile())).toBe(true);
  });

  it('never writes a value as plaintext to the database or its WAL', () => {
    const store = open();
    const value = `needle-${randomBytes(12).toString('hex')}`;
    store.secrets.put('default', 'provider-credentials', 'aws', JSON.stringify({ token: value }));
    store.secrets.put('default', 'database-password', 'db-1', value);
    if (storeEngineUnderTest === 'sqlite') expect(['cairn.db', 'cairn.db-wal'].map((f) => join(dir, f)).filter(existsSync)).toHaveLength(2);
    const bytes = storedBytes(dir);
    expect(bytes.length).toBeGreaterThan(0);
    for (const form of [value, Buffer.from(value).toString('base64'), Buffer.from(value).toString('base64url'), Buffer.from(value).toString('hex')]) {
      expect(bytes.includes(Buffer.from(form))).toBe(false);
    }
    expect(bytes.includes(Buffer.from(value, 'utf16le'))).toBe(false);
    expect(store.secrets.get('default', 'database-password', 'db-1')).toBe(value);
  });

  itOnSqliteFile('refuses a ciphertext copied onto another row', () => {
    const store = open();
    store.secrets.put('default', 'database-password', 'db-1', 'one');
    store.secrets.put('default', 'database-password', 'db-2', 'two');
    const db = new Database(join(dir, 'cairn.db'));
    db.prepare(`UPDATE secrets SET ciphertext = (SELECT ciphertext FROM secrets WHERE name = 'db-1') WHERE name = 'db-2'`).run();
    db.close();
    expect(() => store.secrets.get('default', 'database-password', 'db-2')).toThrow(
      'secret database-password/db-2 of tenant default: a stored secret does not decrypt: the value was altered, or it belongs to another secret',
    );
    expect(store.secrets.get('default', 'database-password', 'db-1')).toBe('one');
  });

  it('refuses to generate a new key file over secrets whose key file is missing', () => {
    open().secrets.put('default', 'database-password', 'db-1', 'v');
    rmSync(keyFile());
    const store = open();
    const missing = `the master key file ${keyFile()} is missing, but the data dir holds encrypted secrets; restore the file from a backup`;
    expect(() => store.secrets.get('default', 'database-password', 'db-1')).toThrow(missing);
    expect(() => store.secrets.put('default', 'database-password', 'db-2', 'w')).toThrow(missing);
    expect(existsSync(keyFile())).toBe(false);
  });

  it('reports where the master key comes from', () => {
    const store = open();
    const described = store.secrets.describeMasterKey();
    expect(described).toMatchObject({ source: 'generated', path: keyFile() });
    expect(open().secrets.describeMasterKey()).toEqual({ ...described, source: 'file' });
  });

  it('uses CAIRN_MASTER_KEY when set and says what is wrong with a bad one', () => {
    const key = randomBytes(32);
    const store = open({ CAIRN_MASTER_KEY: key.toString('base64') });
    store.secrets.put('default', 'database-password', 'db-1', 'v');
    expect(existsSync(keyFile())).toBe(false);
    expect(store.secrets.describeMasterKey()).toEqual({ source: 'env', keyId: masterKeyId(key), keyIds: [masterKeyId(key)] });
    const bad = open({ CAIRN_MASTER_KEY: key.subarray(0, 16).toString('hex') });
    expect(() => bad.secrets.get('default', 'database-password', 'db-1')).toThrow('CAIRN_MASTER_KEY looks like hex but has 32 digits');
    const wrong = open({ CAIRN_MASTER_KEY: randomBytes(32).toString('base64') });
    expect(() => wrong.secrets.get('default', 'database-password', 'db-1')).toThrow(`sealed with master key ${masterKeyId(key)}, which is not in the keyring`);
  });
});

describe('master key rotation with the key file', () => {
  function seed(store: Store, count: number): void {
    for (let i = 0; i < count; i++) store.secrets.put(i % 2 ? 'acme' : 'default', 'database-password', `db-${i}`, `value-${i}`);
  }
  function expectAllReadable(store: Store, count: number): void {
    for (let i = 0; i < count; i++) expect(store.secrets.get(i % 2 ? 'acme' : 'default', 'database-password', `db-${i}`)).toBe(`value-${i}`);
  }

  it('re-encrypts every secret under a new key and drops the old one from the file', () => {
    const store = open();
    seed(store, 5);
    const before = store.secrets.describeMasterKey().keyId;
    const result = store.rotateMasterKey();
    expect(result).toMatchObject({ source: 'file', reencrypted: 5, droppedKeyIds: [before], path: keyFile() });
    expect(result.activeKeyId).not.toBe(before);
    expect(readKeyringFile(keyFile())?.map((k) => k.id)).toEqual([result.activeKeyId]);
    expectAllReadable(store, 5);
    expectAllReadable(open(), 5);
  });

  it('leaves everything readable after a crash between writing the new key file and re-encrypting', () => {
    const store = open();
    seed(store, 3);
    const old = store.secrets.describeMasterKey().keyId;
    expect(() =>
      store.rotateMasterKey({
        afterStep: (step) => {
          if (step === 'keyring-written') throw new Error('simulated crash');
        },
      }),
    ).toThrow('simulated crash');
    const keys = readKeyringFile(keyFile())?.map((k) => k.id) ?? [];
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(old);
    const restarted = open();
    expectAllReadable(restarted, 3);
    restarted.secrets.put('default', 'database-password', 'db-new', 'written-after-crash');
    const result = restarted.rotateMasterKey();
    expect(result.reencrypted).toBe(4);
    expect(readKeyringFile(keyFile())?.map((k) => k.id)).toEqual([result.activeKeyId]);
    expectAllReadable(open(), 3);
    expect(open().secrets.get('default', 'database-password', 'db-new')).toBe('written-after-crash');
  });

  it('leaves everything readable after a crash between re-encrypting and dropping the old key', () => {
    const store = open();
    seed(store, 3);
    expect(() =>
      store.rotateMasterKey({
        afterStep: (step) => {
          if (step === 'secrets-reencrypted') throw new Error('simulated crash');
        },
      }),
    ).toThrow('simulated crash');
    expect(readKeyringFile(keyFile())).toHaveLength(2);
    expectAllReadable(open(), 3);
    expect(open().rotateMasterKey().reencrypted).toBe(3);
    expect(readKeyringFile(keyFile())).toHaveLength(1);
  });

  it('lets another process that loaded the old key read and write after the rotation', () => {
    const serving = open();
    seed(serving, 2);
    expect(serving.secrets.get('default', 'database-password', 'db-0')).toBe('value-0');
    const result = open().rotateMasterKey();
    expectAllReadable(serving, 2);
    serving.secrets.put('default', 'database-password', 'db-late', 'late');
    expect(open().secrets.get('default', 'database-password', 'db-late')).toBe('late');
    expect(readKeyringFile(keyFile())?.map((k) => k.id)).toEqual([result.activeKeyId]);
  });
});

describe('master key rotation with CAIRN_MASTER_KEY', () => {
  it('re-encrypts under the first key and names the keys that can go', () => {
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    const before = open({ CAIRN_MASTER_KEY: oldKey.toString('base64') });
    before.secrets.put('default', 'database-password', 'db-1', 'v1');
    before.secrets.put('default', 'database-password', 'db-2', 'v2');
    const both = { CAIRN_MASTER_KEY: `${newKey.toString('base64')},${oldKey.toString('base64')}` };
    const result = open(both).rotateMasterKey();
    expect(result).toEqual({ source: 'env', activeKeyId: masterKeyId(newKey), reencrypted: 2, rewrappedBackups: 0, droppedKeyIds: [], removableKeyIds: [masterKeyId(oldKey)] });
    const after = open({ CAIRN_MASTER_KEY: newKey.toString('base64') });
    expect(after.secrets.get('default', 'database-password', 'db-2')).toBe('v2');
    expect(() => before.secrets.put('default', 'database-password', 'db-3', 'v3')).toThrow(
      `re-encrypted under master key ${masterKeyId(newKey)}, which this process does not have`,
    );
  });

  it('moves secrets from the key file to CAIRN_MASTER_KEY', () => {
    const fromFile = open();
    fromFile.secrets.put('default', 'database-password', 'db-1', 'v1');
    const envKey = randomBytes(32);
    const result = open({ CAIRN_MASTER_KEY: envKey.toString('hex') }).rotateMasterKey();
    expect(result).toMatchObject({ source: 'env', reencrypted: 1, path: keyFile(), removableKeyIds: [fromFile.secrets.describeMasterKey().keyId] });
    rmSync(keyFile());
    expect(open({ CAIRN_MASTER_KEY: envKey.toString('hex') }).secrets.get('default', 'database-password', 'db-1')).toBe('v1');
  });
});
