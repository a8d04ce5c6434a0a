/**
 * @module cairn's own SSH key, one ED25519 pair per tenant: the key the SSH runtime connects to a
 * tenant's servers with, put into every new server's user data and shown to the owner of a
 * bring-your-own host (`GET /ssh-keys/runtime`). Made on first need, sealed at rest (secret
 * purpose `ssh-runtime-key`, names `current` and `previous`).
 *
 * Rotation keeps the key it replaces valid: `rotateRuntimeKey` makes a new current key and keeps
 * the old one as `previous`; while a rotation is in progress both public keys go into new
 * servers' user data (`authorizedPublicKeys`), and a connection may try both (`runtimeKeys`).
 * Once every host accepts the new key, `retirePreviousRuntimeKey` forgets the old one. A second
 * rotation before that is refused: dropping a key hosts may still rely on could lock cairn out.
 *
 * Usage (the SSH runtime): `new RuntimeKeys(store).runtimeKey(tenant).privateKey` is the
 * OpenSSH private key to connect with; during a rotation also try `runtimeKeys(tenant).previous`.
 */
import { ConflictError } from '../model/errors.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { generateKeyPair } from './key-pairs.js';

export const SSH_RUNTIME_KEY_SECRET = 'ssh-runtime-key';

/** One runtime key pair of a tenant. `privateKey` is secret: OpenSSH format, unencrypted. */
export interface RuntimeKey {
  /** One `authorized_keys` line: `ssh-ed25519 AAAA... cairn-runtime:<tenant>`. */
  publicKey: string;
  privateKey: string;
  /** `SHA256:...`, as `ssh-keygen -l` prints it. */
  fingerprint: string;
  /** When the pair was made (ISO 8601). */
  createdAt: string;
}

/** The tenant's runtime keys: the current one, and the one a rotation in progress replaces. */
export interface RuntimeKeySet {
  current: RuntimeKey;
  /** Still valid until retired; null when no rotation is in progress. */
  previous: RuntimeKey | null;
}

/** What the runtime keys are kept in: the sealed secrets, and one write transaction for a rotation. */
export interface RuntimeKeyStorage {
  readonly secrets: SecretStore;
  transaction<T>(work: () => T): T;
}

const CURRENT = 'current';
const PREVIOUS = 'previous';

export class RuntimeKeys {
  constructor(private readonly storage: RuntimeKeyStorage) {}

  /** The tenant's current runtime key, made (once, whoever asks first) on first need. */
  runtimeKey(tenant: string): RuntimeKey {
    const stored = this.read(tenant, CURRENT);
    if (stored) return stored;
    this.storage.secrets.putIfAbsent(tenant, SSH_RUNTIME_KEY_SECRET, CURRENT, JSON.stringify(newKey(tenant)));
    const made = this.read(tenant, CURRENT);
    if (!made) throw new Error(`the runtime SSH key of tenant ${tenant} was stored but cannot be read back`);
    return made;
  }

  /** The current key (made on first need) and the previous one while a rotation is in progress. */
  runtimeKeys(tenant: string): RuntimeKeySet {
    return { current: this.runtimeKey(tenant), previous: this.read(tenant, PREVIOUS) ?? null };
  }

  /** The public keys new servers must accept: the current one, and the previous one during a rotation. */
  authorizedPublicKeys(tenant: string): string[] {
    const { current, previous } = this.runtimeKeys(tenant);
    return previous ? [current.publicKey, previous.publicKey] : [current.publicKey];
  }

  /**
   * Makes a new current key; the one it replaces becomes `previous` and stays valid until
   * `retirePreviousRuntimeKey`. Refused (ConflictError) while an earlier rotation is not retired.
   */
  rotateRuntimeKey(tenant: string): RuntimeKeySet {
    const next = newKey(tenant);
    return this.storage.transaction(() => {
      const previous = this.read(tenant, PREVIOUS);
      if (previous) {
        throw new ConflictError(
          `a rotation of the runtime SSH key is already in progress (the previous key ${previous.fingerprint} is still valid); ` +
            'retire the previous key first, once every host accepts the current one',
        );
      }
      const current = this.runtimeKey(tenant);
      this.storage.secrets.put(tenant, SSH_RUNTIME_KEY_SECRET, PREVIOUS, JSON.stringify(current));
      this.storage.secrets.put(tenant, SSH_RUNTIME_KEY_SECRET, CURRENT, JSON.stringify(next));
      return { current: next, previous: current };
    });
  }

  /** Forgets the previous key of a rotation; the key retired, or null when there was none. */
  retirePreviousRuntimeKey(tenant: string): RuntimeKey | null {
    return this.storage.transaction(() => {
      const previous = this.read(tenant, PREVIOUS);
      if (previous) this.storage.secrets.delete(tenant, SSH_RUNTIME_KEY_SECRET, PREVIOUS);
      return previous ?? null;
    });
  }

  private read(tenant: string, name: string): RuntimeKey | undefined {
    const text = this.storage.secrets.get(tenant, SSH_RUNTIME_KEY_SECRET, name);
    if (text === undefined) return undefined;
    const key = JSON.parse(text) as RuntimeKey;
    return { publicKey: key.publicKey, privateKey: key.privateKey, fingerprint: key.fingerprint, createdAt: key.createdAt };
  }
}

function newKey(tenant: string): RuntimeKey {
  const pair = generateKeyPair({ algorithm: 'ed25519', comment: `cairn-runtime:${tenant}` });
  return { publicKey: pair.publicKey, privateKey: pair.privateKey, fingerprint: pair.fingerprint, createdAt: new Date().toISOString() };
}
