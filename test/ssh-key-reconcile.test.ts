/**
 * @module The SSHKey reconciler on keys from manifests: a generated key gets one pair per uid,
 * sealed, replaced only when the spec asks for another algorithm or size; an imported key that cannot be used stalls saying
 * why (never repeating it); a deleted key waits for the servers that name it and takes its
 * sealed pair with it.
 */
import { describe, expect, it } from 'vitest';
import type { AnyManifest } from '../src/model/resource.js';
import { parsePublicKey } from '../src/ssh-keys/key-pairs.js';
import { sealedPairOf } from '../src/ssh-keys/sealed-pairs.js';
import { condition, isReady, providerManifest, serverManifest, useReconcileHarness } from './support/reconcile-harness.js';

const harness = useReconcileHarness();
const sshKey = (name: string, spec: Record<string, unknown> = {}): AnyManifest => ({ apiVersion: 'cairn.dev/v1', kind: 'SSHKey', metadata: { name }, spec });

/** An RSA public key of 1024 bits (too small to import), made from its parts: e = 65537, n = 2^1023 + 1. */
function smallRsaKey(): string {
  const string = (b: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(b.length);
    return Buffer.concat([length, b]);
  };
  const n = Buffer.alloc(129);
  n[1] = 0x80;
  n[128] = 1;
  const blob = Buffer.concat([string(Buffer.from('ssh-rsa')), string(Buffer.from([1, 0, 1])), string(n)]);
  return `ssh-rsa ${blob.toString('base64')} old@box`;
}

describe('SSHKeys from manifests', () => {
  it('generate one sealed pair per key, kept while the spec asks for the same, replaced when it asks for another size', async () => {
    const h = harness();
    h.apply(sshKey('deploy'), sshKey('legacy', { algorithm: 'rsa' }));
    h.controller.start();
    await h.until('keys ready', () => isReady(h.get('SSHKey', 'deploy')) && isReady(h.get('SSHKey', 'legacy')), 15_000);
    const deploy = h.get('SSHKey', 'deploy');
    expect(deploy.status).toMatchObject({ phase: 'ready', details: { algorithm: 'ed25519', bits: 256, generated: true } });
    const pair = sealedPairOf(h.store.secrets, deploy)!;
    expect(deploy.status.details).toMatchObject({ publicKey: pair.publicKey, fingerprint: pair.fingerprint });
    expect(parsePublicKey(pair.publicKey).fingerprint).toBe(pair.fingerprint);
    expect(h.get('SSHKey', 'legacy').status.details).toMatchObject({ algorithm: 'rsa', bits: 3072 });
    expect(JSON.stringify(h.get('SSHKey', 'legacy').status)).not.toContain('PRIVATE KEY');

    // Asked for another size: a new pair replaces the old one; the other key keeps its own.
    const legacyBefore = h.get('SSHKey', 'legacy').status.details?.fingerprint;
    h.apply(sshKey('deploy'), sshKey('legacy', { algorithm: 'rsa', bits: 4096 }));
    await h.until('legacy 4096', () => isReady(h.get('SSHKey', 'legacy')) && h.get('SSHKey', 'legacy').status.details?.bits === 4096, 30_000);
    expect(h.get('SSHKey', 'legacy').status.details?.fingerprint).not.toBe(legacyBefore);
    expect(sealedPairOf(h.store.secrets, h.get('SSHKey', 'legacy'))?.bits).toBe(4096);
    expect(sealedPairOf(h.store.secrets, h.get('SSHKey', 'deploy'))).toEqual(pair);
    expect(h.get('SSHKey', 'deploy').status.details?.fingerprint).toBe(pair.fingerprint);
  });

  it('stalls an imported key that cannot be used, saying why without the key', async () => {
    const h = harness();
    const small = smallRsaKey();
    h.apply(sshKey('old', { publicKey: small }));
    h.controller.start();
    await h.until('old in error', () => h.get('SSHKey', 'old').status.phase === 'error');
    const ready = condition(h.get('SSHKey', 'old'), 'Ready');
    expect(ready).toMatchObject({ reason: 'InvalidPublicKey', message: 'spec.publicKey: the ssh-rsa key has 1024 bits; cairn takes RSA keys of at least 2048 bits (3072 or more is better, ed25519 better still)' });
    expect(JSON.stringify(h.get('SSHKey', 'old').status)).not.toContain(small.split(' ')[1]!.slice(0, 30));
  });

  it('deletes a key once no server names it, with its sealed pair', async () => {
    const h = harness();
    h.apply(providerManifest(h.cloud.url), sshKey('deploy'), serverManifest('web', { sshKeys: ['deploy'] }));
    h.controller.start();
    await h.until('web ready', () => isReady(h.get('Server', 'web')), 15_000);
    const key = h.get('SSHKey', 'deploy');
    expect(sealedPairOf(h.store.secrets, key)).toBeDefined();

    h.store.resources.requestDeletionOf(h.get('Server', 'web').uid, 'api');
    await h.until('web gone', () => h.find('Server', 'web') === undefined, 15_000);
    h.store.resources.requestDeletionOf(key.uid, 'api');
    await h.until('deploy gone', () => h.find('SSHKey', 'deploy') === undefined, 15_000);
    expect(sealedPairOf(h.store.secrets, key)).toBeUndefined();
  });
});
