/** @module Tests of SSHKey manifests at validation (what `cairn plan` and `cairn apply` see): a private key pasted into publicKey is refused with file:line and why, never echoed; the rules between publicKey, algorithm and bits. */
import { describe, expect, it } from 'vitest';
import { generateKeyPair } from '../ssh-keys/key-pairs.js';
import { formatLoadErrors, loadManifestSources } from './manifest-loader.js';
import { planChanges } from './plan.js';

function sshKeyYaml(spec: string): string {
  return `apiVersion: cairn.dev/v1\nkind: SSHKey\nmetadata:\n  name: deploy\nspec:\n${spec}`;
}

function errorsOf(text: string): string[] {
  return formatLoadErrors(loadManifestSources([{ file: 'keys.yaml', text }]));
}

describe('SSHKey manifests', () => {
  const pair = generateKeyPair({ comment: 'me@laptop' });

  it('refuses a private key pasted into publicKey, at its line, saying why, without echoing it', () => {
    const indented = pair.privateKey.trimEnd().split('\n').map((l) => `    ${l}`).join('\n');
    const errors = errorsOf(sshKeyYaml(`  publicKey: |\n${indented}\n`));
    expect(errors).toContain(
      'keys.yaml:6:14 SSHKey/deploy spec.publicKey: this is a private key, not a public one: give the public key (the one line of the .pub file, e.g. ~/.ssh/id_ed25519.pub) and consider this private key exposed',
    );
    const body = pair.privateKey.split('\n')[1]!;
    for (const line of errors) expect(line).not.toContain(body.slice(0, 16));
  });

  it('refuses options, DSA and two keys in publicKey, and algorithm or bits beside it, with reasons', () => {
    expect(errorsOf(sshKeyYaml(`  publicKey: "ssh-dss AAAAB3NzaC1kc3M= old"\n`))[0]).toMatch(/^keys\.yaml:6:14 SSHKey\/deploy spec\.publicKey: must be one public key line .*no DSA/);
    expect(errorsOf(sshKeyYaml(`  publicKey: 'no-pty ${pair.publicKey}'\n`))[0]).toMatch(/spec\.publicKey: must be one public key line .*no options before it/);
    expect(errorsOf(sshKeyYaml(`  publicKey: ${pair.publicKey}\n  algorithm: rsa\n`))).toEqual([
      'keys.yaml:7:14 SSHKey/deploy spec.algorithm: algorithm is for keys cairn generates; an imported key (publicKey) is what it is: remove algorithm, or remove publicKey to have cairn generate the pair',
    ]);
    expect(errorsOf(sshKeyYaml(`  bits: 4096\n`))).toEqual(['keys.yaml:6:9 SSHKey/deploy spec.bits: bits is for RSA keys only (algorithm: rsa); ed25519 keys are always 256 bits']);
    expect(errorsOf(sshKeyYaml(`  algorithm: rsa\n  bits: 2048\n`))).toEqual(['keys.yaml:7:9 SSHKey/deploy spec.bits: must be one of: 3072, 4096']);
  });

  it('takes an imported public key, a generated key by default, and RSA 4096; a Server names keys that must exist', () => {
    for (const spec of [`  publicKey: ${pair.publicKey}\n`, '  {}\n', '  algorithm: rsa\n  bits: 4096\n']) expect(errorsOf(sshKeyYaml(spec))).toEqual([]);
    const server = 'apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: web\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n  sshKeys: [deploy, missing]\n';
    const provider = 'apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n';
    const errors = formatLoadErrors(loadManifestSources([{ file: 'all.yaml', text: `${provider}---\n${server}---\n${sshKeyYaml('  {}\n')}` }]));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBe('all.yaml:16:21 Server/web spec.sshKeys[1]: SSHKey "missing" does not exist in namespace default');
  });

  it('plans a change of a server\'s sshKeys as a replacement, and says so', () => {
    const base = { kind: 'Server' as const, namespace: 'default', name: 'web', labels: {}, annotations: {} };
    const spec = { provider: 'p', region: 'eu-1', size: 'small' };
    const plan = planChanges([{ ...base, spec: { ...spec, sshKeys: ['deploy', 'ops'] } }], [{ ...base, uid: 'u1', deleting: false, spec: { ...spec, sshKeys: ['deploy'] } }]);
    const change = plan.changes.find((c) => c.name === 'web')!;
    expect(change.action).toBe('replace');
    expect(change.replacementReasons).toEqual(['spec.sshKeys: changing the sshKeys replaces the server']);
  });
});
