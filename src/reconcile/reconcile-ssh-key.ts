/**
 * @module SSHKeys: nothing is made at a vendor. An imported key (`spec.publicKey`) is read and
 * checked; a generated one gets its pair, made once per uid and sealed (src/ssh-keys/
 * sealed-pairs.ts: the REST create stores it with the resource, a manifest's key gets it here).
 * Either way the status carries the key's public facts (`details.algorithm`, `bits`,
 * `fingerprint`, `publicKey`, `generated`) and the phase is `ready`. A key is removed, with its
 * sealed pair, once no server names it.
 */
import type { AnyStoredResource, StoredResource } from '../model/resource.js';
import { InvalidPublicKeyError, parsePublicKey, type KeyAlgorithm } from '../ssh-keys/key-pairs.js';
import { ensurePair, forgetPair, sealedPairOf } from '../ssh-keys/sealed-pairs.js';
import type { ReconcileContext, ReconcileResult } from './context.js';
import { requireNoDependents } from './dependencies.js';
import { StallError } from './errors.js';
import { REMOVED } from './managed.js';
import { StatusDraft } from './status-draft.js';

export const REASON_KEY_READY = 'KeyReady';
export const REASON_INVALID_PUBLIC_KEY = 'InvalidPublicKey';

/** What the status (and the REST record) shows of a key. */
export interface SshKeyFacts {
  algorithm: KeyAlgorithm;
  bits: number;
  fingerprint: string;
  publicKey: string;
  /** cairn generated the pair and holds its private key sealed. */
  generated: boolean;
}

/** The key's facts as its status records them, once it is ready; undefined before. */
export function recordedKeyFacts(r: AnyStoredResource): SshKeyFacts | undefined {
  const d = r.status.details ?? {};
  if (typeof d.publicKey !== 'string' || typeof d.fingerprint !== 'string') return undefined;
  return { algorithm: d.algorithm as KeyAlgorithm, bits: Number(d.bits), fingerprint: d.fingerprint, publicKey: d.publicKey, generated: d.generated === true };
}

/** Marks the draft ready with the key's facts (shared with the REST create, which stores a generated pair itself). */
export function markKeyReady(draft: StatusDraft, facts: SshKeyFacts): void {
  draft.setPhase('ready');
  draft.status.details = { ...draft.status.details, ...facts };
  draft.markReady(REASON_KEY_READY, `${facts.generated ? 'generated' : 'imported'} ${facts.algorithm} key ${facts.fingerprint}`);
}

/** The facts of a key's spec: the imported key read (a stall that says why when it cannot be), or the generated pair. */
export function keyFactsOf(ctx: Pick<ReconcileContext, 'store'>, r: StoredResource<'SSHKey'>): SshKeyFacts {
  const { publicKey } = r.spec;
  if (publicKey !== undefined) {
    try {
      const parsed = parsePublicKey(publicKey);
      return { algorithm: parsed.algorithm, bits: parsed.bits, fingerprint: parsed.fingerprint, publicKey: parsed.publicKey, generated: false };
    } catch (error) {
      if (error instanceof InvalidPublicKeyError) throw new StallError(REASON_INVALID_PUBLIC_KEY, `spec.publicKey: ${error.message}`);
      throw error;
    }
  }
  const pair = ensurePair(ctx.store.secrets, r, r.spec);
  return { algorithm: pair.algorithm, bits: pair.bits, fingerprint: pair.fingerprint, publicKey: pair.publicKey, generated: true };
}

export function reconcileSshKey(ctx: ReconcileContext, r: StoredResource<'SSHKey'>, draft: StatusDraft): Promise<ReconcileResult> {
  if (r.deletionTimestamp !== null) {
    draft.setPhase('deleting');
    requireNoDependents(ctx, r);
    const removed = ctx.store.transaction(() => {
      if (!ctx.store.resources.removeDeleted(r.uid, r.generation)) return false;
      forgetPair(ctx.store.secrets, r);
      return true;
    });
    // Declared again while it was being deleted: kept, with its pair.
    if (!removed) return Promise.resolve({ requeueAfterMs: 0 });
    ctx.record(r, 'Normal', 'Deleted', `SSH key ${r.name} removed`);
    ctx.wakeWaiting();
    return Promise.resolve(REMOVED);
  }
  // An imported key keeps no private key: one left from when the key was generated goes.
  if (r.spec.publicKey !== undefined && sealedPairOf(ctx.store.secrets, r)) forgetPair(ctx.store.secrets, r);
  const facts = keyFactsOf(ctx, r);
  const before = recordedKeyFacts(r);
  markKeyReady(draft, facts);
  if (before?.fingerprint !== facts.fingerprint) ctx.record(r, 'Normal', REASON_KEY_READY, `${facts.generated ? 'generated' : 'imported'} ${facts.algorithm} key ${facts.fingerprint}`);
  // Nothing outside cairn can change it: no periodic look needed.
  return Promise.resolve({});
}
