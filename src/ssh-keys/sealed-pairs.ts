/**
 * @module The key pairs cairn generates for SSHKey resources, sealed at rest: one pair per
 * SSHKey uid (secret purpose `ssh-key-pair`), written with insert-if-absent so that whoever
 * stores first — the REST create, in the same transaction as the resource, or the reconciler for
 * a key made from a manifest — wins, and every later reader sees that one pair. A crash between
 * generating and storing leaves nothing, so the next attempt generates afresh; a crash after
 * storing leaves the pair that was (or was about to be) shown. The private key is read back only
 * by `sealedPairOf`; records and statuses carry the public facts alone.
 */
import type { SSHKeySpec } from '../model/generated/kinds.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { generateKeyPair, type GeneratedAlgorithm, type RsaBits, type SshKeyPair } from './key-pairs.js';

export const SSH_KEY_PAIR_SECRET = 'ssh-key-pair';

/** What the secret holds (JSON). */
interface StoredPair {
  algorithm: GeneratedAlgorithm;
  bits: number;
  publicKey: string;
  privateKey: string;
  fingerprint: string;
}

/** Who a sealed pair belongs to. */
export interface PairOwner {
  tenant: string;
  uid: string;
  namespace: string;
  name: string;
}

/** The algorithm and size a generated key's spec asks for. */
export function wantedPair(spec: SSHKeySpec): { algorithm: GeneratedAlgorithm; bits: number } {
  const algorithm = spec.algorithm ?? 'ed25519';
  return { algorithm, bits: algorithm === 'rsa' ? (spec.bits ?? 3072) : 256 };
}

/** Generates the pair a spec asks for, with a comment naming the key (`cairn:<namespace>/<name>`). */
export function generatePairFor(owner: PairOwner, spec: SSHKeySpec): SshKeyPair {
  const { algorithm, bits } = wantedPair(spec);
  return generateKeyPair({ algorithm, ...(algorithm === 'rsa' ? { bits: bits as RsaBits } : {}), comment: `cairn:${owner.namespace}/${owner.name}` });
}

/** Stores `pair` for the key unless one is stored already; the pair that is stored afterwards. */
export function sealPairOnce(secrets: SecretStore, owner: PairOwner, pair: SshKeyPair): SshKeyPair {
  const value: StoredPair = { algorithm: pair.algorithm, bits: pair.bits, publicKey: pair.publicKey, privateKey: pair.privateKey, fingerprint: pair.fingerprint };
  secrets.putIfAbsent(owner.tenant, SSH_KEY_PAIR_SECRET, owner.uid, JSON.stringify(value));
  const stored = sealedPairOf(secrets, owner);
  if (!stored) throw new Error(`the key pair of SSHKey ${owner.namespace}/${owner.name} was stored but cannot be read back`);
  return stored;
}

/** The sealed pair of a generated key, private key included; undefined when none is stored. */
export function sealedPairOf(secrets: SecretStore, owner: Pick<PairOwner, 'tenant' | 'uid'>): SshKeyPair | undefined {
  const text = secrets.get(owner.tenant, SSH_KEY_PAIR_SECRET, owner.uid);
  if (text === undefined) return undefined;
  const stored = JSON.parse(text) as StoredPair;
  return { algorithm: stored.algorithm, bits: stored.bits, publicKey: stored.publicKey, privateKey: stored.privateKey, fingerprint: stored.fingerprint };
}

/**
 * The key's pair as its spec wants it: the stored one when it matches the spec's algorithm and
 * size, else a new one (first need, or a spec changed to another algorithm or size, which
 * replaces the pair).
 */
export function ensurePair(secrets: SecretStore, owner: PairOwner, spec: SSHKeySpec): SshKeyPair {
  const stored = sealedPairOf(secrets, owner);
  const wanted = wantedPair(spec);
  if (stored && stored.algorithm === wanted.algorithm && stored.bits === wanted.bits) return stored;
  if (stored) secrets.delete(owner.tenant, SSH_KEY_PAIR_SECRET, owner.uid);
  return sealPairOnce(secrets, owner, generatePairFor(owner, spec));
}

/** Forgets the sealed pair (the key is deleted, or now imports a public key instead). */
export function forgetPair(secrets: SecretStore, owner: Pick<PairOwner, 'tenant' | 'uid'>): void {
  secrets.delete(owner.tenant, SSH_KEY_PAIR_SECRET, owner.uid);
}
