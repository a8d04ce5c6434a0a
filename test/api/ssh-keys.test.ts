/**
 * @module `/ssh-keys` through a running cairn: generated keys (private key shown once, never
 * replayed or stored in the clear), imported keys, refusals that never echo a key, list and get,
 * a server made with ssh_key_ids (422 naming an unknown id), 409 on deleting a key a server uses,
 * roles (viewers read), and cairn's runtime key with its owner-only, audited rotation.
 */
/* eslint-disable @typescript-eslint/no-unsafe-call -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, parsePublicKey } from '../../src/ssh-keys/key-pairs.js';
import { Store } from '../../src/store/store.js';
import { contractProblems, startApiServer, type ApiServer } from '../support/api-server.js';
import { queryState, storedBytes } from '../support/store-engine.js';

const PASSWORD = 'ssh keys password';
let api: ApiServer;
let owner = '';
let member = '';
let viewer = '';
const shownPrivateKeys: string[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'cairn-ssh-keys-api-'));

beforeAll(async () => {
  api = await startApiServer({}, { dataDir });
  await api.addUser('owner@example.com', PASSWORD, 'owner');
  await api.addUser('member@example.com', PASSWORD, 'member');
  await api.addUser('viewer@example.com', PASSWORD, 'viewer');
  owner = (await api.login('owner@example.com', PASSWORD)).access_token;
  member = (await api.login('member@example.com', PASSWORD)).access_token;
  viewer = (await api.login('viewer@example.com', PASSWORD)).access_token;
}, 60_000);

afterAll(async () => {
  await api.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('/ssh-keys', () => {
  let generatedId = '';

  it('generates an ED25519 pair, shows its private key once when asked, and never again', async () => {
    const created = await api.call('POST', '/api/v1/ssh-keys', { token: member, body: { name: 'deploy', return_private_key: true } });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/v1/ssh-keys/${created.body.id}`);
    expect(created.body).toMatchObject({ name: 'deploy', algorithm: 'ed25519', bits: 256, generated: true, status: 'ready' });
    const parsed = parsePublicKey(created.body.public_key);
    expect(parsed).toMatchObject({ type: 'ssh-ed25519', comment: 'cairn:default/deploy', fingerprint: created.body.fingerprint });
    expect(created.body.private_key).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    shownPrivateKeys.push(created.body.private_key);
    generatedId = created.body.id;

    const got = await api.call('GET', `/api/v1/ssh-keys/${generatedId}`, { token: viewer });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ public_key: created.body.public_key, fingerprint: created.body.fingerprint, status: 'ready' });
    expect(got.body).not.toHaveProperty('private_key');
    // The reconciler confirms the same key (it was stored with the resource), and nothing changes.
    const settled = await api.until(`/api/v1/ssh-keys/${generatedId}`, viewer, (b: { observed_generation: number; conditions: Array<{ type: string; status: string }> }) =>
      b.observed_generation === 1 && b.conditions.some((c) => c.type === 'Ready' && c.status === 'True'));
    expect(settled).toMatchObject({ fingerprint: created.body.fingerprint });
  });

  it('generates RSA 4096 without returning the private key unless asked', async () => {
    const created = await api.call('POST', '/api/v1/ssh-keys', { token: member, body: { name: 'legacy', algorithm: 'rsa', bits: 4096 } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ algorithm: 'rsa', bits: 4096, generated: true });
    expect(created.body).not.toHaveProperty('private_key');
    expect(parsePublicKey(created.body.public_key).bits).toBe(4096);
  });

  it('replays a create retried with the same Idempotency-Key without the private key, which is kept nowhere in the clear', async () => {
    const headers = { 'Idempotency-Key': 'make-ops-key' };
    const first = await api.call('POST', '/api/v1/ssh-keys', { token: member, headers, body: { name: 'ops', return_private_key: true } });
    expect(first.status, first.text).toBe(201);
    shownPrivateKeys.push(first.body.private_key);
    const again = await api.call('POST', '/api/v1/ssh-keys', { token: member, headers, body: { name: 'ops', return_private_key: true } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toMatchObject({ id: first.body.id, fingerprint: first.body.fingerprint });
    expect(again.body).not.toHaveProperty('private_key');
  });

  it('imports a public key as one clean line', async () => {
    const pair = generateKeyPair({ algorithm: 'rsa', comment: 'me@laptop' });
    const created = await api.call('POST', '/api/v1/ssh-keys', { token: member, body: { name: 'laptop', public_key: `  ${pair.publicKey}\n`, return_private_key: true } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ algorithm: 'rsa', bits: 3072, public_key: pair.publicKey, fingerprint: pair.fingerprint, generated: false, status: 'ready' });
    expect(created.body).not.toHaveProperty('private_key');
  });

  it('refuses a private key, options and DSA as public_key with the reason, echoing nothing and creating nothing', async () => {
    const pair = generateKeyPair();
    const cases: Array<[string, RegExp]> = [
      [pair.privateKey, /this is a private key, not a public one/],
      [`command="true" ${pair.publicKey}`, /starts with authorized_keys options/],
      ['ssh-dss AAAAB3NzaC1kc3MAAACBAP x@y', /DSA \(ssh-dss\) keys are refused/],
    ];
    for (const [publicKey, reason] of cases) {
      const refused = await api.call('POST', '/api/v1/ssh-keys', { token: member, body: { name: 'bad', public_key: publicKey } });
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body.errors).toEqual([{ pointer: '/public_key', message: expect.stringMatching(reason) }]);
      expect(refused.text).not.toContain(pair.publicKey.split(' ')[1]);
      expect(refused.text).not.toContain(pair.privateKey.split('\n')[1]);
    }
    const both = await api.call('POST', '/api/v1/ssh-keys', { token: member, body: { name: 'bad', public_key: pair.publicKey, algorithm: 'rsa' } });
    expect(both.status).toBe(422);
    const list = await api.call('GET', '/api/v1/ssh-keys', { token: viewer });
    expect(list.body.items.map((k: { name: string }) => k.name).sort()).toEqual(['deploy', 'laptop', 'legacy', 'ops']);
  });

  it('refuses a second key of the same name whole: no second pair is kept', async () => {
    const again = await api.call('POST', '/api/v1/ssh-keys', { token: member, body: { name: 'deploy', return_private_key: true } });
    expect(again.status, again.text).toBe(409);
    expect(again.text).not.toContain('PRIVATE KEY');
  });

  it('lets viewers read but not write', async () => {
    const refused = await api.call('POST', '/api/v1/ssh-keys', { token: viewer, body: { name: 'nope' } });
    expect(refused.status).toBe(403);
    expect((await api.call('DELETE', `/api/v1/ssh-keys/${generatedId}`, { token: viewer })).status).toBe(403);
    expect((await api.call('GET', '/api/v1/ssh-keys', { token: viewer })).status).toBe(200);
  });

  it('puts keys on a server by id (422 naming an unknown id), and refuses to delete a key a server uses, naming it', async () => {
    const provider = await api.call('POST', '/api/v1/providers', { token: member, body: { name: 'play', vendor: 'sandbox' } });
    expect(provider.status, provider.text).toBe(201);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const missing = await api.call('POST', '/api/v1/servers', { token: member, body: { name: 'web', provider_id: provider.body.id, region: 'eu-1', size: 'small', ssh_key_ids: [generatedId, unknown] } });
    expect(missing.status, missing.text).toBe(422);
    expect(missing.body.errors).toEqual([{ pointer: '/ssh_key_ids/1', message: `no SSH key has id ${unknown}` }]);

    const server = await api.call('POST', '/api/v1/servers', { token: member, body: { name: 'web', provider_id: provider.body.id, region: 'eu-1', size: 'small', ssh_key_ids: [generatedId] } });
    expect(server.status, server.text).toBe(202);
    expect(server.body.ssh_key_ids).toEqual([generatedId]);
    const busy = await api.call('DELETE', `/api/v1/ssh-keys/${generatedId}`, { token: member });
    expect(busy.status, busy.text).toBe(409);
    expect(busy.body.detail).toContain('SSHKey/deploy is still used by Server/web');

    const legacy = (await api.call('GET', '/api/v1/ssh-keys', { token: viewer })).body.items.find((k: { name: string }) => k.name === 'legacy');
    const deleted = await api.call('DELETE', `/api/v1/ssh-keys/${legacy.id}`, { token: member });
    expect(deleted.status, deleted.text).toBe(202);
    await api.until('/api/v1/ssh-keys', viewer, (b: { items: Array<{ name: string }> }) => !b.items.some((k) => k.name === 'legacy'));
  });

  it('shows cairn\'s runtime key, and lets only owners rotate it, audited, keeping the previous one until retired', async () => {
    const runtime = await api.call('GET', '/api/v1/ssh-keys/runtime', { token: viewer });
    expect(runtime.status, runtime.text).toBe(200);
    expect(parsePublicKey(runtime.body.public_key)).toMatchObject({ type: 'ssh-ed25519', fingerprint: runtime.body.fingerprint });
    expect(runtime.body.previous).toBeNull();
    expect(runtime.body).not.toHaveProperty('private_key');
    expect((await api.call('POST', '/api/v1/ssh-keys/runtime/rotate', { token: viewer })).status).toBe(403);
    const byMember = await api.call('POST', '/api/v1/ssh-keys/runtime/rotate', { token: member });
    expect(byMember.status).toBe(403);
    expect(byMember.body.detail).toContain('only the tenant\'s owners may rotate');
    const rotated = await api.call('POST', '/api/v1/ssh-keys/runtime/rotate', { token: owner });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.previous).toMatchObject({ public_key: runtime.body.public_key, fingerprint: runtime.body.fingerprint });
    expect(rotated.body.fingerprint).not.toBe(runtime.body.fingerprint);
    const twice = await api.call('POST', '/api/v1/ssh-keys/runtime/rotate', { token: owner });
    expect(twice.status).toBe(409);
    expect((await api.call('GET', '/api/v1/ssh-keys/runtime', { token: viewer })).body).toEqual(rotated.body);
  });

  it('answers every call as the OpenAPI document says', () => {
    expect(contractProblems).toEqual([]);
  });
});

describe('at rest', () => {
  it('keeps no private key in the clear in the state file, and audits the rotation', async () => {
    await api.stop();
    const atRest = storedBytes(api.dataDir);
    expect(shownPrivateKeys).toHaveLength(2);
    for (const key of shownPrivateKeys) {
      const body = key.split('\n')[1]!;
      expect(atRest.includes(body)).toBe(false);
    }
    const store = Store.open(api.dataDir);
    try {
      // One sealed pair per generated key that still exists (deploy, ops): none for the refused
      // duplicate, none left by the deleted one, none for the imported one.
      const keys = store.resources.page({ tenant: 'default', kind: 'SSHKey' }, { limit: 50 }).items;
      const sealed = keys.filter((k) => store.secrets.get('default', 'ssh-key-pair', k.uid) !== undefined).map((k) => k.name).sort();
      expect(sealed).toEqual(['deploy', 'ops']);
      expect(keys.map((k) => k.name).sort()).toEqual(['deploy', 'laptop', 'ops']);
      expect(queryState(api.dataDir, `SELECT count(*) AS n FROM secrets WHERE purpose = 'ssh-key-pair'`)).toEqual([{ n: 2 }]);
      const tenant = store.auditLog.list('default', { limit: 50 }).items;
      expect(tenant.map((e) => e.action)).toContain('ssh_runtime_key.rotate');
    } finally {
      store.close();
    }
  });
});
