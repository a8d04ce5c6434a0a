/**
 * @module SSH keys between REST and manifests: the record (what the key is: algorithm, size,
 * fingerprint, public key; never its private half) and the SSHKey manifest a create body becomes.
 */
import type { SSHKeySpec } from '../../model/generated/kinds.js';
import { ValidationError } from '../../model/errors.js';
import type { Manifest, StoredResource } from '../../model/resource.js';
import { recordedKeyFacts, type SshKeyFacts } from '../../reconcile/reconcile-ssh-key.js';
import { InvalidPublicKeyError, parsePublicKey, type KeyAlgorithm } from '../../ssh-keys/key-pairs.js';
import { apiMetadata, baseRecord, type BaseRecord } from './common.js';
import { applyBodyFields } from './rest-fields.js';

export interface SshKeyRecord extends BaseRecord {
  algorithm: KeyAlgorithm | null;
  bits: number | null;
  fingerprint: string | null;
  public_key: string | null;
  generated: boolean;
  /** The generated private key, only in the create answer that asked for it. */
  private_key?: string;
}

export interface SshKeyCreateBody {
  name: string;
  public_key?: string;
  algorithm?: 'ed25519' | 'rsa';
  bits?: 3072 | 4096;
  return_private_key?: boolean;
  labels?: Record<string, string>;
}

/** The key as its status records it; before that, an imported key as read from its spec; else nulls. */
function factsOf(r: StoredResource<'SSHKey'>): Omit<SshKeyFacts, 'generated'> | undefined {
  const recorded = recordedKeyFacts(r);
  if (recorded) return recorded;
  if (r.spec.publicKey === undefined) return undefined;
  try {
    return parsePublicKey(r.spec.publicKey);
  } catch {
    return undefined; // the reconciler stalls it and says why in its Ready condition
  }
}

export function sshKeyRecord(r: StoredResource<'SSHKey'>): SshKeyRecord {
  const facts = factsOf(r);
  return {
    ...baseRecord(r),
    algorithm: facts?.algorithm ?? null,
    bits: facts?.bits ?? null,
    fingerprint: facts?.fingerprint ?? null,
    public_key: facts?.publicKey ?? null,
    generated: r.spec.publicKey === undefined,
  };
}

/**
 * Reads `public_key` before anything else looks at the body: a private key pasted by mistake, a
 * DSA key, options or two keys get the reason (never the key back) on `/public_key`.
 */
export function checkPublicKeyField(body: unknown): void {
  const given = (body as { public_key?: unknown } | null | undefined)?.public_key;
  if (typeof given !== 'string') return;
  try {
    parsePublicKey(given);
  } catch (error) {
    if (!(error instanceof InvalidPublicKeyError)) throw error;
    throw new ValidationError(`public_key: ${error.message}`, [{ pointer: '/public_key', message: error.message }]);
  }
}

export function sshKeyManifest(body: SshKeyCreateBody): Manifest<'SSHKey'> {
  const spec: SSHKeySpec = {};
  applyBodyFields('SSHKey', 'create', body, spec);
  // Stored as one clean line: what every record and server will show of it.
  if (spec.publicKey !== undefined) spec.publicKey = parsePublicKey(spec.publicKey).publicKey;
  return { apiVersion: 'cairn.dev/v1', kind: 'SSHKey', metadata: apiMetadata(body.name, body.labels), spec };
}
