/**
 * @module Host keys, trust on first use: the first key a host presents is pinned (per tenant,
 * by `host:port`), later connections must present the same key, and a changed key refuses to
 * connect with HostKeyChangedError. Fingerprints are written as `ssh-keygen -l` prints them:
 * `SHA256:` and the unpadded base64 of the SHA-256 of the public key blob.
 */
import { createHash } from 'node:crypto';

/** Where pins are kept: the store for cairn (src/store/ssh-host-keys.ts), memory in unit tests. */
export interface HostKeyPins {
  /** The pinned fingerprint of `hostId` (`host:port`), if any. */
  pinned(hostId: string): string | undefined;
  /** Records `fingerprint` as the key of `hostId` unless one is pinned already (the first pin wins). */
  pin(hostId: string, fingerprint: string): void;
  /** How a user accepts a new key of `hostId` (named in HostKeyChangedError). */
  acceptHint?(hostId: string): string;
}

/** `host:port`, the id a host key is pinned under (IPv6 literals bracketed). */
export function hostIdOf(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The SHA-256 fingerprint of a public key blob (the wire form), as `ssh-keygen -l` prints it. */
export function fingerprintOfKeyBlob(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** A host presented a key other than the one pinned for it: nothing was sent to it. */
export class HostKeyChangedError extends Error {
  constructor(
    readonly hostId: string,
    readonly pinnedFingerprint: string,
    readonly presentedFingerprint: string,
    acceptHint: string,
  ) {
    super(
      `the host key of ${hostId} changed: pinned ${pinnedFingerprint}, presented ${presentedFingerprint}. ` +
        `cairn refused to connect (the host may have been reinstalled, or someone is intercepting the connection). ` +
        `If the change is expected, ${acceptHint}`,
    );
    this.name = 'HostKeyChangedError';
  }
}

/**
 * Checks `presented` against the pin of `hostId`, pinning it on first contact. Throws
 * HostKeyChangedError when another key is pinned (also when another writer pinned first).
 */
export function verifyHostKey(pins: HostKeyPins, hostId: string, presented: string): void {
  let pinned = pins.pinned(hostId);
  if (pinned === undefined) {
    pins.pin(hostId, presented);
    pinned = pins.pinned(hostId) ?? presented;
  }
  if (pinned !== presented) {
    const hint = pins.acceptHint?.(hostId) ?? `remove the pin of ${hostId} and connect again`;
    throw new HostKeyChangedError(hostId, pinned, presented, hint);
  }
}

/** Pins held in memory (unit tests, one-off checks); the store's are durable and per tenant. */
export class MemoryHostKeyPins implements HostKeyPins {
  private readonly pins = new Map<string, string>();

  pinned(hostId: string): string | undefined {
    return this.pins.get(hostId);
  }

  pin(hostId: string, fingerprint: string): void {
    if (!this.pins.has(hostId)) this.pins.set(hostId, fingerprint);
  }

  /** Forgets the pin of `hostId`, so that its next key is trusted on first use again. */
  unpin(hostId: string): void {
    this.pins.delete(hostId);
  }

  acceptHint(hostId: string): string {
    return `call unpin(${JSON.stringify(hostId)}) on these in-memory pins and connect again`;
  }
}
