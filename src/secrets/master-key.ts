/**
 * @module Master keys as operators give them: 32 random bytes in base64 or hex, a list of them
 * in CAIRN_MASTER_KEY (`new,old`, first active). A key's id is derived from the key, so the same
 * key has the same id wherever it is configured, and the id reveals nothing of the key.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { MasterKey } from './envelope.js';
import { SecretsError } from './secrets-error.js';

export const MASTER_KEY_ENV = 'CAIRN_MASTER_KEY';
const KEY_BYTES = 32;
const HOW_TO_MAKE_ONE = 'make one with: openssl rand -base64 32';

/** Thrown when CAIRN_MASTER_KEY or the key file cannot be used; the message says why. */
export class MasterKeyError extends SecretsError {
  override readonly name = 'MasterKeyError';
}

export function masterKeyId(key: Buffer): string {
  return createHash('sha256').update('cairn master key id\0').update(key).digest('hex').slice(0, 16);
}

export function toMasterKey(key: Buffer): MasterKey {
  if (key.length !== KEY_BYTES) throw new MasterKeyError(`a master key must be ${KEY_BYTES} bytes, not ${key.length}`);
  return { id: masterKeyId(key), key };
}

export function generateMasterKey(): MasterKey {
  return toMasterKey(randomBytes(KEY_BYTES));
}

/**
 * The keys in CAIRN_MASTER_KEY's value, active first. Messages name the entry and what is wrong
 * with it, never its content.
 */
export function parseMasterKeyList(value: string): MasterKey[] {
  if (value.trim() === '') {
    throw new MasterKeyError(`${MASTER_KEY_ENV} is set but empty; unset it to use the key file in the data dir, or set it to a key (${HOW_TO_MAKE_ONE})`);
  }
  const entries = value.split(',').map((entry) => entry.trim());
  const keys: MasterKey[] = [];
  entries.forEach((entry, index) => {
    const key = toMasterKey(decodeEntry(entry, entries.length === 1 ? `${MASTER_KEY_ENV}` : `${MASTER_KEY_ENV} entry ${index + 1} of ${entries.length}`));
    if (!keys.some((k) => k.id === key.id)) keys.push(key);
  });
  return keys;
}

function decodeEntry(entry: string, label: string): Buffer {
  if (entry === '') throw new MasterKeyError(`${label} is empty (a stray comma?); separate keys with single commas, new key first`);
  if (/^[0-9a-fA-F]+$/.test(entry) && entry.length === KEY_BYTES * 2) return Buffer.from(entry, 'hex');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(entry)) {
    throw new MasterKeyError(`${label} is neither hex nor base64 (it has characters outside both alphabets); ${HOW_TO_MAKE_ONE}`);
  }
  if (/^[0-9a-fA-F]+$/.test(entry) && entry.length !== 43 && entry.length !== 44) {
    throw new MasterKeyError(`${label} looks like hex but has ${entry.length} digits; a key is ${KEY_BYTES} bytes, which is ${KEY_BYTES * 2} hex digits`);
  }
  const bytes = Buffer.from(entry, 'base64');
  if (bytes.length !== KEY_BYTES) {
    throw new MasterKeyError(
      `${label} decodes from base64 to ${bytes.length} bytes; a key must be exactly ${KEY_BYTES} bytes (${KEY_BYTES * 2} hex digits or 44 base64 characters); ${HOW_TO_MAKE_ONE}`,
    );
  }
  return bytes;
}
