/**
 * @module The control plane is not a way in (issue #10), driven over real HTTP against a real
 * `cairn serve` on its production defaults (no CAIRN_ALLOW_PRIVATE_ENDPOINTS): a member of a
 * second tenant cannot run a command on the host through the `local` vendor, and no URL a tenant
 * gives (vendor endpoint, git source) makes cairn send a request to loopback or the metadata
 * address. Each hostile input changes nothing and the listener it aims at gets no request.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from './support/api-server.js';

const PASSWORD = 'a long enough password';
const scratch = mkdtempSync(join(tmpdir(), 'cairn-security-'));
const marker = join(scratch, 'ran-as');

let api: ApiServer;
let internal: Server;
let internalUrl = '';
let hits = 0;
const tokens: Record<'acmeOwner' | 'acmeMember' | 'hostMember' | 'hostOwner', string> = { acmeOwner: '', acmeMember: '', hostMember: '', hostOwner: '' };

/** The attack of the issue: a local Provider, a Server on it, an App that runs a shell command. */
const hostileManifests = `apiVersion: cairn.dev/v1
kind: Provider
metadata: { name: here }
spec: { vendor: local }
---
apiVersion: cairn.dev/v1
kind: Server
metadata: { name: box }
spec: { provider: here, region: local, size: host }
---
apiVersion: cairn.dev/v1
kind: App
metadata: { name: pwn }
spec:
  server: box
  source: { path: /etc }
  command: "sh -c 'id > ${marker}; head -2 /etc/shadow >> ${marker}'"
`;

beforeAll(async () => {
  internal = createServer((_req, res) => {
    hits++;
    res.end(JSON.stringify({ account: { status: 'active' }, message: 'secret internal answer' }));
  });
  await new Promise<void>((done) => internal.listen(0, '127.0.0.1', done));
  internalUrl = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;
  // Production defaults: the outbound guard closed, the local vendor for the default tenant only,
  // local apps only from the directory cairn starts in.
  api = await startApiServer({ CAIRN_ALLOW_PRIVATE_ENDPOINTS: '', CAIRN_LOCAL_SOURCE_DIRS: '' });
  await api.addUser('owner@acme.test', PASSWORD, 'owner', 'acme');
  await api.addUser('member@acme.test', PASSWORD, 'member', 'acme');
  await api.addUser('owner@host.test', PASSWORD, 'owner');
  await api.addUser('member@host.test', PASSWORD, 'member');
  tokens.acmeOwner = (await api.login('owner@acme.test', PASSWORD)).access_token;
  tokens.acmeMember = (await api.login('member@acme.test', PASSWORD)).access_token;
  tokens.hostOwner = (await api.login('owner@host.test', PASSWORD)).access_token;
  tokens.hostMember = (await api.login('member@host.test', PASSWORD)).access_token;
}, 90_000);

afterAll(async () => {
  await api.stop();
  internal.close();
  rmSync(scratch, { recursive: true, force: true });
});

const applyYaml = (token: string, text: string) => api.call('POST', '/api/v1/manifests', { token, raw: { contentType: 'application/yaml', text } });

describe('the local vendor belongs to the operator', () => {
  it.each(['acmeMember', 'acmeOwner'] as const)('refuses it to the %s of a tenant the operator did not allow, naming the setting', async (who) => {
    const answer = await applyYaml(tokens[who], hostileManifests);
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body.code).toBe('forbidden');
    expect(answer.body.detail).toMatch(/Provider\/here: tenant "acme" may not use the local vendor.*CAIRN_LOCAL_VENDOR_TENANTS/);
    const providers = await api.call('GET', '/api/v1/providers', { token: tokens[who] });
    expect(providers.body.items).toEqual([]);
  });

  it('refuses a local Provider through POST /providers the same way, and stores no credentials', async () => {
    const answer = await api.call('POST', '/api/v1/providers', { token: tokens.acmeOwner, body: { name: 'here', vendor: 'local' } });
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body.detail).toMatch(/tenant "acme" may not use the local vendor.*CAIRN_LOCAL_VENDOR_TENANTS/);
    expect((await api.call('GET', '/api/v1/providers', { token: tokens.acmeOwner })).body.items).toEqual([]);
  });

  it('refuses it to a member of the allowed tenant: only owners and admins touch the host', async () => {
    const answer = await applyYaml(tokens.hostMember, hostileManifests);
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body.detail).toMatch(/role member may not declare a Provider of the local vendor/);
  });

  it("refuses reading cairn's environment through credentialsRef.env to another tenant", async () => {
    const answer = await applyYaml(tokens.acmeOwner, 'apiVersion: cairn.dev/v1\nkind: Provider\nmetadata: { name: leak }\nspec: { vendor: sandbox, endpoint: "https://cloud.example.com", credentialsRef: { env: CAIRN_MASTER_KEY } }\n');
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body.detail).toMatch(/may not read cairn's environment \(credentialsRef.env names CAIRN_MASTER_KEY\)/);
  });

  it('lets the owner of the allowed tenant use it, but not run an app from outside the allowed directories', async () => {
    const answer = await applyYaml(tokens.hostOwner, hostileManifests);
    expect(answer.status, answer.text).toBe(200);
    const apps = await api.call('GET', '/api/v1/apps', { token: tokens.hostOwner });
    const app = apps.body.items.find((a: any) => a.name === 'pwn');
    const failed = await api.until(`/api/v1/apps/${app.id}`, tokens.hostOwner, (a) => a.status === 'failed');
    expect(JSON.stringify(failed)).toMatch(/spec.source.path \/etc is outside the directories apps may run from .*CAIRN_LOCAL_SOURCE_DIRS/);
  });

  it.each([
    ['a git remote on loopback', () => `${internalUrl}/acme/app.git`, /does not connect to 127\.0\.0\.1/],
    ['a repository of the host outside the allowed directories', () => `file://${scratch}`, /the git repository .* is outside the directories apps may run from/],
  ])("refuses an app's git source at %s", async (_what, url, refusal) => {
    const name = `git-${Math.random().toString(36).slice(2, 8)}`;
    const app = `apiVersion: cairn.dev/v1\nkind: App\nmetadata: { name: ${name} }\nspec:\n  server: box\n  source: { git: { url: "${url()}", ref: main } }\n  command: "sh -c 'id > ${marker}'"\n`;
    expect((await applyYaml(tokens.hostOwner, app)).status).toBe(200);
    const apps = await api.call('GET', '/api/v1/apps', { token: tokens.hostOwner });
    const id = apps.body.items.find((a: any) => a.name === name).id;
    const failed = await api.until(`/api/v1/apps/${id}`, tokens.hostOwner, (a) => a.status === 'failed' || refusal.test(JSON.stringify(a)));
    expect(JSON.stringify(failed)).toMatch(refusal);
    expect(hits).toBe(0);
  });

  it('never ran the command', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(existsSync(marker)).toBe(false);
  });
});

describe('no tenant URL reaches the private network', () => {
  it.each([
    ['loopback', () => `${internalUrl}/internal`, /does not connect to 127\.0\.0\.1: it is a loopback address/],
    ['cloud metadata', () => 'http://169.254.169.254/latest', /does not connect to 169\.254\.169\.254: it is a link-local \(cloud metadata\) address/],
    ['a name for loopback', () => internalUrl.replace('127.0.0.1', 'localhost'), /does not connect to localhost \(it resolves to/],
  ])('a provider endpoint on %s is refused by its test, and nothing is sent', async (_what, endpoint, refusal) => {
    const created = await api.call('POST', '/api/v1/providers', {
      token: tokens.acmeMember,
      body: { name: `probe-${Math.random().toString(36).slice(2, 8)}`, vendor: 'sandbox', endpoint: endpoint(), credentials: { token: 'stolen' } },
    });
    expect(created.status, created.text).toBe(201);
    const tested = await api.call('POST', `/api/v1/providers/${created.body.id}/test`, { token: tokens.acmeMember });
    expect(tested.body.ok).toBe(false);
    expect(tested.body.message).toMatch(refusal);
    expect(tested.text).not.toContain('secret internal answer');
    expect(hits).toBe(0);
  });

  it('a git source on loopback fails its sync with the refusal, and nothing is sent', async () => {
    const created = await api.call('POST', '/api/v1/sources', { token: tokens.acmeMember, body: { name: 'probe', url: `${internalUrl}/acme/infra.git` } });
    expect(created.status, created.text).toBe(201);
    const synced = await api.until(`/api/v1/sources/${created.body.id}`, tokens.acmeMember, (s) => JSON.stringify(s).includes('refused'));
    expect(JSON.stringify(synced)).toMatch(/does not connect to 127\.0\.0\.1/);
    expect(hits).toBe(0);
  });
});
