/** @module Tests of envelope encryption: round trip, tampering, identity binding, unknown keys, re-wrapping. */
import { describe, expect, it } from 'vitest';
import { openSecret, rewrapSecret, sealedKeyId, sealSecret, SecretIntegrityError, UnknownMasterKeyError, type Keyring } from './envelope.js';
import { generateMasterKey } from './master-key.js';

const master = generateMasterKey();
const keyring: Keyring = { active: master, keys: [master] };
const aad = JSON.stringify(['cairn-secret', 'default', 'database-password', 'db-1']);

/** Flips one bit of the part at `index` (0-based, after the version) of a sealed value. */
function flip(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index]!, 'base64url');
  bytes[bytes.length - 1]! ^= 1;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('envelope encryption', () => {
  it('opens what it sealed, and seals the same value differently each time', () => {
    const value = 'p@ssw0rd – ünïcode ✓';
    const first = sealSecret(master, value, aad);
    const second = sealSecret(master, value, aad);
    expect(openSecret(keyring, first, aad)).toBe(value);
    expect(first).not.toBe(second);
    expect(first).toMatch(/^v1\.[0-9a-f]{16}\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealedKeyId(first)).toBe(master.id);
    expect(first).not.toContain(Buffer.from(value).toString('base64url'));
  });

  it('seals the empty string', () => {
    expect(openSecret(keyring, sealSecret(master, '', aad), aad)).toBe('');
  });

  it('refuses a value whose ciphertext, iv or wrapped data key was altered', () => {
    const sealed = sealSecret(master, 'secret', aad);
    for (const index of [2, 3, 4]) {
      expect(() => openSecret(keyring, flip(sealed, index), aad)).toThrow(SecretIntegrityError);
    }
    expect(() => openSecret(keyring, sealed.slice(0, -4), aad)).toThrow(SecretIntegrityError);
    expect(() => openSecret(keyring, 'not a sealed value', aad)).toThrow(/not in the v1 envelope format/);
  });

  it('refuses a value moved to another identity (wrong AAD)', () => {
    const sealed = sealSecret(master, 'secret', aad);
    const other = JSON.stringify(['cairn-secret', 'other-tenant', 'database-password', 'db-1']);
    expect(() => openSecret(keyring, sealed, other)).toThrow(/belongs to another secret/);
  });

  it('names the missing key when the keyring does not hold it', () => {
    const sealed = sealSecret(generateMasterKey(), 'secret', aad);
    let caught: unknown;
    try {
      openSecret(keyring, sealed, aad);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UnknownMasterKeyError);
    expect((caught as Error).message).toContain(`master key ${sealedKeyId(sealed)}, which is not in the keyring (it holds ${master.id})`);
  });

  it('refuses a key id swapped for another key of the keyring', () => {
    const other = generateMasterKey();
    const both: Keyring = { active: master, keys: [master, other] };
    const swapped = sealSecret(master, 'secret', aad).replace(master.id, other.id);
    expect(() => openSecret(both, swapped, aad)).toThrow(SecretIntegrityError);
  });

  it('re-wraps under a new key without changing the value, and refuses to carry a broken value', () => {
    const next = generateMasterKey();
    const sealed = sealSecret(master, 'secret', aad);
    const rewrapped = rewrapSecret(keyring, sealed, aad, next);
    expect(sealedKeyId(rewrapped)).toBe(next.id);
    expect(openSecret({ active: next, keys: [next] }, rewrapped, aad)).toBe('secret');
    expect(() => openSecret(keyring, rewrapped, aad)).toThrow(UnknownMasterKeyError);
    expect(() => rewrapSecret(keyring, flip(sealed, 4), aad, next)).toThrow(SecretIntegrityError);
  });
});
