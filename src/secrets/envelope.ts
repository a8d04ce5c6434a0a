/**
 * @module Envelope encryption of one value (AES-256-GCM): a fresh data key encrypts the value,
 * the master key wraps the data key. Pure functions over `v1.<kid>.<wrapped dek>.<iv>.<ct+tag>`.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SecretsError } from './secrets-error.js';

/** A 32-byte AES key and its id (see ./master-key.ts for how ids are made). */
export interface MasterKey {
  readonly id: string;
  readonly key: Buffer;
}

/** The keys that may open values; `active` seals new ones and is also in `keys`. */
export interface Keyring {
  readonly active: MasterKey;
  readonly keys: readonly MasterKey[];
}

/** A value names a master key that the keyring does not hold. */
export class UnknownMasterKeyError extends SecretsError {
  override readonly name = 'UnknownMasterKeyError';
  constructor(readonly keyId: string, known: readonly string[]) {
    super(
      `the secret was sealed with master key ${keyId}, which is not in the keyring (it holds ${known.join(', ') || 'no keys'}); ` +
        'restore the key file or add the old key to CAIRN_MASTER_KEY after the new one (CAIRN_MASTER_KEY=new,old)',
    );
  }
}

/** A sealed value that does not open: altered, truncated, or sealed for another identity. */
export class SecretIntegrityError extends SecretsError {
  override readonly name: string = 'SecretIntegrityError';
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** The length of a wrapped data key: iv, encrypted key, tag. */
export const WRAPPED_DATA_KEY_BYTES = IV_BYTES + KEY_BYTES + TAG_BYTES;

/** Encrypts `plaintext` under a new data key wrapped by `master`; `aad` binds it to its identity. */
export function sealSecret(master: MasterKey, plaintext: string, aad: string): string {
  const dek = randomBytes(KEY_BYTES);
  try {
    const iv = randomBytes(IV_BYTES);
    const body = gcmEncrypt(dek, iv, Buffer.from(plaintext, 'utf8'), Buffer.from(aad, 'utf8'));
    return [VERSION, master.id, wrapDataKey(master, dek), b64(iv), b64(body)].join('.');
  } finally {
    dek.fill(0);
  }
}

/** Decrypts a value sealed by `sealSecret` with the same `aad`. */
export function openSecret(keyring: Keyring, sealed: string, aad: string): string {
  const parts = parseSealed(sealed);
  const dek = unwrapDataKey(keyring, parts.keyId, parts.wrapped);
  try {
    return gcmDecrypt(dek, parts.iv, parts.body, Buffer.from(aad, 'utf8'), 'the value was altered, or it belongs to another secret').toString('utf8');
  } finally {
    dek.fill(0);
  }
}

/**
 * Re-wraps the data key of a sealed value under `next`, after checking that the value still
 * opens with `aad` (so a rotation never carries a broken value along silently).
 */
export function rewrapSecret(keyring: Keyring, sealed: string, aad: string, next: MasterKey): string {
  const parts = parseSealed(sealed);
  const dek = unwrapDataKey(keyring, parts.keyId, parts.wrapped);
  try {
    gcmDecrypt(dek, parts.iv, parts.body, Buffer.from(aad, 'utf8'), 'the value was altered, or it belongs to another secret');
    return [VERSION, next.id, wrapDataKey(next, dek), b64(parts.iv), b64(parts.body)].join('.');
  } finally {
    dek.fill(0);
  }
}

/** The id of the master key a sealed value names. */
export function sealedKeyId(sealed: string): string {
  return parseSealed(sealed).keyId;
}

interface SealedParts {
  keyId: string;
  wrapped: Buffer;
  iv: Buffer;
  body: Buffer;
}

function parseSealed(sealed: string): SealedParts {
  const parts = sealed.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION) {
    throw new SecretIntegrityError(`a stored secret is not in the ${VERSION} envelope format (${parts.length} parts, version "${parts[0] ?? ''}")`);
  }
  const [, keyId = '', wrapped = '', iv = '', body = ''] = parts;
  const parsed = { keyId, wrapped: fromB64(wrapped), iv: fromB64(iv), body: fromB64(body) };
  if (parsed.iv.length !== IV_BYTES || parsed.wrapped.length !== IV_BYTES + KEY_BYTES + TAG_BYTES || parsed.body.length < TAG_BYTES) {
    throw new SecretIntegrityError('a stored secret is truncated or altered (its parts have the wrong lengths)');
  }
  return parsed;
}

/** Wraps a 32-byte data key under `master` (base64url of iv, ciphertext and tag; 60 bytes). */
export function wrapDataKey(master: MasterKey, dek: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  return b64(Buffer.concat([iv, gcmEncrypt(master.key, iv, dek, wrapAad(master.id))]));
}

/** The data key wrapped by `wrapDataKey` under the keyring's key `keyId`. */
export function unwrapDataKey(keyring: Keyring, keyId: string, wrapped: Buffer): Buffer {
  const master = keyring.keys.find((k) => k.id === keyId);
  if (!master) throw new UnknownMasterKeyError(keyId, keyring.keys.map((k) => k.id));
  return gcmDecrypt(
    master.key,
    wrapped.subarray(0, IV_BYTES),
    wrapped.subarray(IV_BYTES),
    wrapAad(keyId),
    `master key ${keyId} does not open this value's data key (the value was altered)`,
  );
}

function wrapAad(keyId: string): Buffer {
  return Buffer.from(`cairn-data-key.${VERSION}.${keyId}`, 'utf8');
}

function gcmEncrypt(key: Buffer, iv: Buffer, plaintext: Buffer, aad: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

function gcmDecrypt(key: Buffer, iv: Buffer, body: Buffer, aad: Buffer, failure: string): Buffer {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SecretIntegrityError(`a stored secret does not decrypt: ${failure}`);
  }
}

function b64(bytes: Buffer): string {
  return bytes.toString('base64url');
}

function fromB64(text: string): Buffer {
  return Buffer.from(text, 'base64url');
}
