/**
 * @module Keys reach new servers (issue #13, SSH keys): a Server naming SSHKeys waits until they
 * are ready, then is created at the vendor with their public keys and cairn's own runtime key
 * of the tenant in its first-boot user data (merged into the user's #cloud-config), as the
 * Hetzner double records the create request; during a runtime key rotation both runtime keys
 * go in, after its retirement only the new one.
 */
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyManifest } from '../src/model/resource.js';
import { generateKeyPair } from '../src/ssh-keys/key-pairs.js';
import { RuntimeKeys } from '../src/ssh-keys/runtime-key.js';
import { startHetznerDouble, type HetznerDouble } from './doubles/hetzner.js';
import { condition, isReady, useReconcileHarness } from './support/reconcile-harness.js';

const TOKEN = 'ssh-keys-hetzner-token';
const harness = useReconcileHarness();
let double: HetznerDouble;

beforeAll(async () => {
  double = await startHetznerDouble({ token: TOKEN, actionMs: 50 });
  process.env.CAIRN_TEST_SSH_KEYS_HCLOUD_TOKEN = TOKEN;
});
afterAll(async () => {
  delete process.env.CAIRN_TEST_SSH_KEYS_HCLOUD_TOKEN;
  expect(double.violations).toEqual([]);
  await double.stop();
});

const provider = (): AnyManifest => ({
  apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'hetzner' },
  spec: { vendor: 'hetzner', endpoint: double.url, credentialsRef: { env: 'CAIRN_TEST_SSH_KEYS_HCLOUD_TOKEN' } },
});
const sshKey = (name: string, spec: Record<string, unknown> = {}): AnyManifest => ({ apiVersion: 'cairn.dev/v1', kind: 'SSHKey', metadata: { name }, spec });
const server = (name: string, spec: Record<string, unknown> = {}): AnyManifest => ({
  apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name }, spec: { provider: 'hetzner', region: 'fsn1', size: 'cx22', ...spec },
});

/** The `ssh_authorized_keys` of the user data the double received for the server named `name`. */
function authorizedKeysAt(name: string): { keys: string[]; config: Record<string, unknown> } {
  const userData = double.servers().find((s) => s.name === name)?.userData;
  if (!userData) throw new Error(`server ${name} has no user data at the vendor`);
  expect(userData.startsWith('#cloud-config\n')).toBe(true);
  const config = parse(userData) as Record<string, unknown>;
  return { keys: config.ssh_authorized_keys as string[], config };
}

function publicKeyOf(h: ReturnType<typeof harness>, name: string): string {
  return h.get('SSHKey', name).status.details?.publicKey as string;
}

describe('SSH keys on new servers', () => {
  it('waits for its keys, then installs them and the runtime key through cloud-init, beside the user\'s own config', async () => {
    const h = harness();
    const laptop = generateKeyPair({ algorithm: 'rsa', comment: 'me@laptop' });
    h.apply(provider(), sshKey('laptop', { publicKey: laptop.publicKey }), server('web', { sshKeys: ['deploy', 'laptop'], userData: '#cloud-config\npackages: [nginx]\n' }));
    h.controller.start();
    await h.until('web waiting for SSHKey/deploy', () => condition(h.get('Server', 'web'), 'Ready')?.message.includes('SSHKey/deploy') === true);
    expect(condition(h.get('Server', 'web'), 'Ready')?.reason).toBe('WaitingForDependency');
    expect(double.servers().some((s) => s.name === 'web')).toBe(false);

    h.apply(provider(), sshKey('laptop', { publicKey: laptop.publicKey }), sshKey('deploy'), server('web', { sshKeys: ['deploy', 'laptop'], userData: '#cloud-config\npackages: [nginx]\n' }));
    await h.until('web ready', () => isReady(h.get('Server', 'web')), 15_000);
    const runtime = new RuntimeKeys(h.store).runtimeKey('default');
    const { keys, config } = authorizedKeysAt('web');
    expect(keys).toEqual([publicKeyOf(h, 'deploy'), laptop.publicKey, runtime.publicKey]);
    expect(config.packages).toEqual(['nginx']);
    expect(h.get('SSHKey', 'deploy').status).toMatchObject({ phase: 'ready', details: { algorithm: 'ed25519', generated: true } });
  });

  it('puts both runtime keys into new servers while a rotation is in progress, and only the new one once retired', async () => {
    const h = harness();
    const runtime = new RuntimeKeys(h.store);
    const original = runtime.runtimeKey('default');
    const rotated = runtime.rotateRuntimeKey('default');
    h.apply(provider(), server('during'));
    h.controller.start();
    await h.until('during ready', () => isReady(h.get('Server', 'during')), 15_000);
    expect(authorizedKeysAt('during').keys).toEqual([rotated.current.publicKey, original.publicKey]);

    runtime.retirePreviousRuntimeKey('default');
    h.apply(provider(), server('during'), server('after'));
    await h.until('after ready', () => isReady(h.get('Server', 'after')), 15_000);
    expect(authorizedKeysAt('after').keys).toEqual([rotated.current.publicKey]);
  });
});
