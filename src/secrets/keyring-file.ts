/**
 * @module The master key file in the data dir (`master.key`, mode 0600): JSON with the keys,
 * active first. Every write goes to a temporary file that is synced, then renamed (or linked,
 * when creating) into place, so a crash leaves either the old file or the new one, whole.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { MasterKey } from './envelope.js';
import { MasterKeyError, masterKeyId, toMasterKey } from './master-key.js';

export const KEYRING_FILE = 'master.key';
const FORMAT = 1;
const NOTE =
  'cairn master keys; the first is active, the others only open values sealed before a rotation. ' +
  'Keep this file secret and backed up with cairn.db: without it the secrets in cairn.db cannot be read.';

interface KeyringFileJson {
  format: number;
  note?: string;
  keys: Array<{ id: string; key: string }>;
}

export function keyringPath(dataDir: string): string {
  return join(dataDir, KEYRING_FILE);
}

/** The keys in the file, active first; undefined when there is no file. */
export function readKeyringFile(path: string): MasterKey[] | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new MasterKeyError(`cannot read the master key file ${path}: ${(error as Error).message}`);
  }
  let json: KeyringFileJson;
  try {
    json = JSON.parse(text) as KeyringFileJson;
  } catch {
    throw new MasterKeyError(`${path} is not a cairn master key file (it is not JSON); restore it from a backup`);
  }
  if (json === null || typeof json !== 'object' || json.format !== FORMAT || !Array.isArray(json.keys) || json.keys.length === 0) {
    throw new MasterKeyError(`${path} is not a cairn master key file (format ${FORMAT} with at least one key); restore it from a backup`);
  }
  return json.keys.map((entry, index) => {
    const bytes = typeof entry?.key === 'string' ? Buffer.from(entry.key, 'base64') : Buffer.alloc(0);
    if (bytes.length !== 32) throw new MasterKeyError(`${path}: key ${index + 1} is not 32 bytes of base64; restore the file from a backup`);
    if (entry.id !== masterKeyId(bytes)) throw new MasterKeyError(`${path}: key ${index + 1}'s id does not match the key (was the file edited?)`);
    return toMasterKey(bytes);
  });
}

/** Replaces the file with one holding `keys` (active first), atomically. */
export function writeKeyringFile(path: string, keys: readonly MasterKey[]): void {
  const temp = writeTemp(path, keys);
  try {
    renameSync(temp, path);
  } catch (error) {
    unlinkQuietly(temp);
    throw error;
  }
  syncDirectory(dirname(path));
}

/** Creates the file with `keys` unless it exists; true when this call created it. */
export function createKeyringFile(path: string, keys: readonly MasterKey[]): boolean {
  const temp = writeTemp(path, keys);
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkQuietly(temp);
  }
  syncDirectory(dirname(path));
  return true;
}

/** A warning when the file can be read by others than its owner. */
export function keyringFileWarning(path: string): string | undefined {
  try {
    const mode = statSync(path).mode & 0o777;
    return mode & 0o077 ? `${path} has mode ${mode.toString(8)}; only its owner should read it (chmod 600 ${path})` : undefined;
  } catch {
    return undefined;
  }
}

function writeTemp(path: string, keys: readonly MasterKey[]): string {
  const json: KeyringFileJson = { format: FORMAT, note: NOTE, keys: keys.map((k) => ({ id: k.id, key: k.key.toString('base64') })) };
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(json, null, 2)}\n`);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkQuietly(temp);
    throw error;
  }
  closeSync(fd);
  return temp;
}

function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems refuse to sync a directory; the rename itself is still atomic.
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
