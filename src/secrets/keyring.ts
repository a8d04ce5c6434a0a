/**
 * @module Where the master keys come from: CAIRN_MASTER_KEY when set, else the key file in the
 * data dir, generated on first use. With the variable set, keys still in an older key file open
 * (never seal) values, so moving from the file to the variable is: set it, `cairn keys rotate`.
 */
import type { Keyring, MasterKey } from './envelope.js';
import { createKeyringFile, keyringFileWarning, keyringPath, readKeyringFile } from './keyring-file.js';
import { generateMasterKey, MASTER_KEY_ENV, MasterKeyError, parseMasterKeyList } from './master-key.js';

export type MasterKeySource = 'env' | 'file' | 'generated';

export interface LoadedKeyring {
  keyring: Keyring;
  source: MasterKeySource;
  /** The key file: the source when `file` or `generated`; the source of extra old keys when `env`. */
  path: string;
  /** Keys from CAIRN_MASTER_KEY, active first (empty unless the source is `env`). */
  envKeys: readonly MasterKey[];
  /** Keys in the key file, active first (empty when there is none). */
  fileKeys: readonly MasterKey[];
}

/** What `cairn serve` says about the master key at start. */
export interface MasterKeyDescription {
  source: MasterKeySource;
  /** The key file, unless the key came from the environment. */
  path?: string;
  /** The active key's id (not secret). */
  keyId: string;
  /** Every key that opens values, active first. */
  keyIds: string[];
  /** Something the operator should fix, e.g. a key file others can read. */
  warning?: string;
}

export interface LoadOptions {
  /**
   * Whether a missing key file may be generated. The store answers no once it holds secrets:
   * a new key could not open them, and values sealed under it would be lost when the old file
   * is restored.
   */
  mayGenerate?: () => boolean;
}

/** Loads the keyring, creating the key file (0600) when neither it nor the variable exists. */
export function loadKeyring(dataDir: string, env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): LoadedKeyring {
  const path = keyringPath(dataDir);
  const fromEnv = env[MASTER_KEY_ENV];
  if (fromEnv !== undefined) {
    const envKeys = parseMasterKeyList(fromEnv);
    const fileKeys = readKeyringFile(path) ?? [];
    const extra = fileKeys.filter((k) => !envKeys.some((e) => e.id === k.id));
    return { keyring: { active: envKeys[0]!, keys: [...envKeys, ...extra] }, source: 'env', path, envKeys, fileKeys };
  }
  const existing = readKeyringFile(path);
  if (existing) return fileKeyring(existing, 'file', path);
  if (options.mayGenerate && !options.mayGenerate()) {
    throw new MasterKeyError(
      `the master key file ${path} is missing, but the data dir holds encrypted secrets; restore the file from a backup, or set ${MASTER_KEY_ENV} to the key`,
    );
  }
  const created = [generateMasterKey()];
  if (createKeyringFile(path, created)) return fileKeyring(created, 'generated', path);
  // Another process created it between our read and our write: use theirs.
  return fileKeyring(readKeyringFile(path) ?? created, 'file', path);
}

export function describeKeyring(loaded: LoadedKeyring): MasterKeyDescription {
  const warning = loaded.source === 'env' && loaded.fileKeys.length === 0 ? undefined : keyringFileWarning(loaded.path);
  return {
    source: loaded.source,
    ...(loaded.source === 'env' ? {} : { path: loaded.path }),
    keyId: loaded.keyring.active.id,
    keyIds: loaded.keyring.keys.map((k) => k.id),
    ...(warning ? { warning } : {}),
  };
}

/** Loads (generating when needed and allowed) and describes the master key of a data dir. */
export function describeMasterKey(dataDir: string, env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): MasterKeyDescription {
  return describeKeyring(loadKeyring(dataDir, env, options));
}

function fileKeyring(keys: MasterKey[], source: MasterKeySource, path: string): LoadedKeyring {
  return { keyring: { active: keys[0]!, keys }, source, path, envKeys: [], fileKeys: keys };
}
