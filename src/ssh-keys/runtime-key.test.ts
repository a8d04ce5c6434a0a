/** @module Tests of cairn's per-tenant runtime SSH key: made once on first need, sealed at rest, rotation that keeps the previous key valid until retired. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../model/errors.js';
import { Store } from '../store/store.js';
import { parsePublicKey } from './key-pairs.js';
import { RuntimeKeys } from './runtime-key.js';
import { storedBytes } from '../../test/support/store-engine.js';

let dir: string;
let stores: Store[];
const open = (): Store => {
  const store = Store.open(dir, { env: {} });
  stores.push(store);
  return store;
};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-runtime-key-'));
  stores = [];
});
afterEach(() => {
  for (const store of stores) store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('RuntimeKeys', () => {
  it('makes one ED25519 key per tenant on first need, the same on every later call and after a restart, sealed at rest', () => {
    const keys = new RuntimeKeys(open());
    const first = keys.runtimeKey('default');
    expect(parsePublicKey(first.publicKey)).toMatchObject({ type: 'ssh-ed25519', comment: 'cairn-runtime:default', fingerprint: first.fingerprint });
    expect(first.privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    expect(keys.runtimeKey('default')).toEqual(first);
    expect(keys.runtimeKey('acme').fingerprint).not.toBe(first.fingerprint);
    // Another process on the same data dir (a restart) sees the same key.
    expect(new RuntimeKeys(open()).runtimeKey('default')).toEqual(first);
    const atRest = storedBytes(dir);
    expect(atRest.includes(Buffer.from(first.privateKey.split('\n')[1]!.slice(0, 24)))).toBe(false);
    expect(atRest.includes(Buffer.from(first.publicKey))).toBe(false);
    expect(atRest.includes(Buffer.from('ssh-runtime-key'))).toBe(true); // the rows are there, sealed
  });

  it('two stores asking at once keep one key (the first stored wins)', () => {
    const a = new RuntimeKeys(open());
    const b = new RuntimeKeys(open());
    const fromB = b.runtimeKey('default');
    expect(a.runtimeKey('default')).toEqual(fromB);
  });

  it('rotates keeping the previous key valid until it is retired; a second rotation before that is refused', () => {
    const keys = new RuntimeKeys(open());
    const original = keys.runtimeKey('default');
    expect(keys.authorizedPublicKeys('default')).toEqual([original.publicKey]);
    const rotated = keys.rotateRuntimeKey('default');
    expect(rotated.previous).toEqual(original);
    expect(rotated.current.fingerprint).not.toBe(original.fingerprint);
    expect(keys.runtimeKey('default')).toEqual(rotated.current);
    expect(keys.runtimeKeys('default')).toEqual(rotated);
    expect(keys.authorizedPublicKeys('default')).toEqual([rotated.current.publicKey, original.publicKey]);
    expect(() => keys.rotateRuntimeKey('default')).toThrow(ConflictError);
    expect(() => keys.rotateRuntimeKey('default')).toThrow(/already in progress .*retire the previous key first/);
    expect(keys.runtimeKey('default')).toEqual(rotated.current);
    expect(keys.retirePreviousRuntimeKey('default')).toEqual(original);
    expect(keys.retirePreviousRuntimeKey('default')).toBeNull();
    expect(keys.runtimeKeys('default')).toEqual({ current: rotated.current, previous: null });
    expect(keys.authorizedPublicKeys('default')).toEqual([rotated.current.publicKey]);
    expect(keys.rotateRuntimeKey('default').previous).toEqual(rotated.current);
  });
});
