/** @module Tests of the sealed key pairs of generated SSHKeys: one pair per uid whoever stores first, replaced when the spec asks for another algorithm. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store.js';
import { ensurePair, forgetPair, generatePairFor, sealedPairOf, sealPairOnce } from './sealed-pairs.js';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-sealed-pairs-'));
  store = Store.open(dir, { env: {} });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const owner = { tenant: 'default', uid: 'uid-1', namespace: 'default', name: 'deploy' };

describe('sealed pairs', () => {
  it('round-trips a pair through the sealed store; the first stored pair wins over a later one', () => {
    const first = generatePairFor(owner, {});
    expect(first.publicKey).toMatch(/^ssh-ed25519 \S+ cairn:default\/deploy$/);
    expect(sealPairOnce(store.secrets, owner, first)).toEqual(first);
    const second = generatePairFor(owner, {});
    expect(sealPairOnce(store.secrets, owner, second)).toEqual(first);
    expect(sealedPairOf(store.secrets, owner)).toEqual(first);
    expect(ensurePair(store.secrets, owner, { algorithm: 'ed25519' })).toEqual(first);
  });

  it('makes the pair on first need, and a new one when the spec asks for another algorithm or size', () => {
    const made = ensurePair(store.secrets, owner, {});
    expect(ensurePair(store.secrets, owner, {})).toEqual(made);
    const rsa = ensurePair(store.secrets, owner, { algorithm: 'rsa' });
    expect(rsa).toMatchObject({ algorithm: 'rsa', bits: 3072 });
    expect(sealedPairOf(store.secrets, owner)).toEqual(rsa);
    forgetPair(store.secrets, owner);
    expect(sealedPairOf(store.secrets, owner)).toBeUndefined();
  });
});
