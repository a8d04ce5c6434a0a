/**
 * @module How a Provider's drivers reach servers over SSH: the process's pooled connections,
 * the tenant's own runtime identity (cairn's key for that tenant, installed on every server it
 * creates), and the host keys that tenant pinned. The driver pool builds one per Provider.
 *
 * During a rotation of the runtime key a host may still know only the previous key: a session
 * refused with the current key is tried with the previous one, and when that is let in, the
 * current public key is added to the user's authorized_keys there, so the next connection
 * uses the current key and the previous one can be retired.
 */
import { SshConnectError, type SshConnections, type SshIdentity, type SshTarget } from './connection-pool.js';
import type { HostKeyPins } from './host-keys.js';
import type { SshSession } from './session.js';

/** One runtime key: the private half to connect with, the public half to install. */
export interface RuntimeIdentity extends SshIdentity {
  publicKey: string;
}

export interface SshAccess {
  readonly connections: SshConnections;
  /** The tenant's current runtime key (made on first need). */
  identity(): Promise<SshIdentity>;
  /** The key a rotation in progress replaces, with the current public key to install; absent when none. */
  rotation?(): Promise<{ previous: RuntimeIdentity; currentPublicKey: string } | null>;
  readonly pins: HostKeyPins;
}

/** Adds a public key to the login user's authorized_keys unless it is there (the key is one quoted argument). */
const INSTALL_KEY_SCRIPT = [
  'umask 077',
  'mkdir -p "$HOME/.ssh" || exit 1',
  'f="$HOME/.ssh/authorized_keys"',
  'touch "$f" || exit 1',
  'grep -qxF -- "$1" "$f" || printf "%s\\n" "$1" >> "$f"',
].join('\n');

/** A session on `target` as the tenant's runtime identity (the previous one during a rotation, moving the host on to the current key). */
export async function sessionOn(access: SshAccess, target: SshTarget): Promise<SshSession> {
  try {
    return await access.connections.session(target, await access.identity(), access.pins);
  } catch (error) {
    const rotation = error instanceof SshConnectError && error.refusedKey ? await access.rotation?.() : null;
    if (!rotation) throw error;
    const old = await access.connections.session(target, rotation.previous, access.pins);
    await old.run(['sh', '-c', INSTALL_KEY_SCRIPT, 'sh', rotation.currentPublicKey.trim()], { timeoutMs: 30_000 });
    return access.connections.session(target, await access.identity(), access.pins);
  }
}
