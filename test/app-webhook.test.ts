/**
 * @module Deploy on push end to end: a real `cairn serve` with a `local` Provider, an App built
 * from a real git server on loopback. A GitHub-signed push to the App's branch deploys the
 * pushed commit (the app's answer changes) and its deployment keeps the build output; a forged
 * signature is a 401 and a push to another branch deploys nothing; a replayed delivery makes no
 * second deployment; a rotation retires the old secret. A Node.js app with no build or command
 * is built and started by detection (npm install, npm run build, npm start).
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubSignature } from '../src/sources/webhook-signature.js';
import { contractProblems, startApiServer, type ApiServer } from './support/api-server.js';
import { git, startGitServer, type GitServer, type GitWorkingCopy } from './support/git-server.js';
import { until } from './support/until.js';

const PASSWORD = 'correct horse battery staple';
const ENV = { CAIRN_LOCAL_HEALTH_TIMEOUT_MS: '5000', CAIRN_POLL_MS: '100' };
let api: ApiServer;
let gitServer: GitServer;
let repo: GitWorkingCopy;
let token = '';
let viewerToken = '';
let serverId = '';

/** The app at `version`: answers its version, and what its build wrote. */
const serverJs = (version: number): string => `const http = require('http');
const built = require('fs').readFileSync('built.txt', 'utf8').trim();
http.createServer((req, res) => res.end(JSON.stringify({ version: ${version}, built })))
  .listen(Number(process.env.PORT), '127.0.0.1', () => console.log('v${version} listening'));
`;

const call = (method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }> =>
  api.call(method, path, { token, ...(body !== undefined ? { body } : {}) });

/** A GitHub push delivery of `ref` at `after`, signed with `secret`. */
function push(appId: string, secret: string, ref: string, after: string, delivery: string, event = 'push') {
  const text = JSON.stringify({ ref, after, before: '0'.repeat(40), repository: { full_name: 'test/app' } });
  return api.call('POST', `/api/v1/apps/${appId}/webhook`, {
    raw: { contentType: 'application/json', text },
    headers: { 'X-GitHub-Event': event, 'X-GitHub-Delivery': delivery, 'X-Hub-Signature-256': githubSignature(secret, text) },
  });
}

const deployments = async (appId: string): Promise<any[]> => (await call('GET', `/api/v1/apps/${appId}/deployments`)).body.items;
const finished = (d: any): boolean => d?.status === 'succeeded' || d?.status === 'failed';
const visit = async (url: string): Promise<any> => (await fetch(url)).json();

beforeAll(async () => {
  gitServer = await startGitServer();
  repo = gitServer.createRepository('web', { 'server.js': serverJs(1) });
  api = await startApiServer(ENV);
  await api.addUser('owner@example.com', PASSWORD, 'owner');
  await api.addUser('viewer@example.com', PASSWORD, 'viewer');
  ({ access_token: token } = await api.login('owner@example.com', PASSWORD));
  ({ access_token: viewerToken } = await api.login('viewer@example.com', PASSWORD));
  const provider = await call('POST', '/api/v1/providers', { name: 'host', vendor: 'local' });
  expect(provider.status).toBe(201);
  const server = await call('POST', '/api/v1/servers', { name: 'this-host', provider_id: provider.body.id, region: 'local', size: 'host' });
  expect(server.status).toBe(202);
  serverId = server.body.id;
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await gitServer?.stop();
});

describe('deploy on push', () => {
  let appId = '';
  let secret = '';
  let url = '';

  it('answers the webhook secret once, when an App with a git source is created', async () => {
    const created = await call('POST', '/api/v1/apps', {
      name: 'web', server_id: serverId, source: { git: { url: repo.url, ref: 'main' } },
      build: 'echo "building $(git rev-parse --short HEAD 2>/dev/null || echo tree)" && echo yes > built.txt', command: 'node server.js',
    });
    expect(created.status).toBe(202);
    expect(created.body.webhook_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    secret = created.body.webhook_secret;
    appId = created.body.id;
    expect((await call('GET', `/api/v1/apps/${appId}`)).body.webhook_secret).toBeUndefined();
    const app = await api.until<any>(`/api/v1/apps/${appId}`, token, (a) => a.status === 'running', 50_000);
    url = app.url;
    expect(await visit(url)).toEqual({ version: 1, built: 'yes' });
  }, 60_000);

  it('refuses a forged signature with 401 and deploys nothing', async () => {
    const before = (await deployments(appId)).length;
    const head = repo.commit({ 'server.js': serverJs(2) }, 'v2');
    const forged = await push(appId, 'not-the-secret', 'refs/heads/main', head, 'forged-1');
    expect(forged.status).toBe(401);
    const unsigned = await api.call('POST', `/api/v1/apps/${appId}/webhook`, { body: { ref: 'refs/heads/main', after: head } });
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.detail).toMatch(/X-Hub-Signature-256/);
    expect(await deployments(appId)).toHaveLength(before);
    expect((await visit(url)).version).toBe(1);
  });

  it('ignores a push to another branch, saying why', async () => {
    const before = (await deployments(appId)).length;
    const ignored = await push(appId, secret, 'refs/heads/feature', 'a'.repeat(40), 'feature-1');
    expect(ignored.status).toBe(202);
    expect(ignored.body).toMatchObject({ deployed: false, sender: 'github' });
    expect(ignored.body.message).toContain('refs/heads/feature');
    const ping = await push(appId, secret, 'refs/heads/main', 'a'.repeat(40), 'ping-1', 'ping');
    expect(ping.status).toBe(200);
    expect(await deployments(appId)).toHaveLength(before);
  });

  it('deploys the pushed commit on a signed push to its branch, keeping the build output', async () => {
    const head = git(join(gitServer.root, 'work', 'web'), ['rev-parse', 'HEAD']);
    const before = (await deployments(appId)).length;
    const answer = await push(appId, secret, 'refs/heads/main', head, 'delivery-2');
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ app_id: appId, trigger: 'webhook', status: 'queued', commit: head });
    const replay = await push(appId, secret, 'refs/heads/main', head, 'delivery-2');
    expect(replay.status).toBe(202);
    expect(replay.body.id).toBe(answer.body.id);
    const done = await until('the webhook deployment to finish', async () => (await deployments(appId)).find((d) => d.id === answer.body.id), finished);
    expect(done).toMatchObject({ status: 'succeeded', commit: head, trigger: 'webhook' });
    expect(await deployments(appId)).toHaveLength(before + 1);
    expect(await visit(url)).toEqual({ version: 2, built: 'yes' });
    const log = await call('GET', `/api/v1/apps/${appId}/deployments/${answer.body.id}/log`);
    expect(log.status).toBe(200);
    expect(log.text).toMatch(/ system release \d+: building: /);
    expect(log.text).toMatch(/ stdout building /);
    expect(log.text).toContain('v2 listening');
    const asViewer = await api.call('GET', `/api/v1/apps/${appId}/deployments/${answer.body.id}/log`, { token: viewerToken });
    expect(asViewer.text).toBe(log.text);
  }, 60_000);

  it('rotates the secret for owners only; the old one stops verifying', async () => {
    expect((await api.call('POST', `/api/v1/apps/${appId}/webhook-secret/rotate`, { token: viewerToken })).status).toBe(403);
    const rotated = await call('POST', `/api/v1/apps/${appId}/webhook-secret/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.webhook_secret).not.toBe(secret);
    const before = (await deployments(appId)).length;
    expect((await push(appId, secret, 'refs/heads/main', 'b'.repeat(40), 'old-secret')).status).toBe(401);
    expect(await deployments(appId)).toHaveLength(before);
    expect((await push(appId, rotated.body.webhook_secret, 'refs/heads/main', 'b'.repeat(40), 'ping-2', 'ping')).status).toBe(200);
  });

  it('answers 409 for an App without a git source', async () => {
    const dir = join(gitServer.root, 'plain');
    git(gitServer.root, ['init', '--quiet', dir]);
    writeFileSync(join(dir, 'server.js'), serverJs(9));
    const plain = await call('POST', '/api/v1/apps', { name: 'plain', server_id: serverId, source: { path: dir }, command: 'node server.js' });
    expect(plain.status).toBe(202);
    expect(plain.body.webhook_secret).toBeUndefined();
    const answer = await push(plain.body.id, 'anything', 'refs/heads/main', 'c'.repeat(40), 'plain-1');
    expect(answer.status).toBe(409);
    expect(answer.body.detail).toMatch(/no git source/);
  });

  it('builds and starts a Node.js app that gives no build or command, by detection', async () => {
    const node = gitServer.createRepository('detected', {
      'package.json': JSON.stringify({ name: 'detected', version: '1.0.0', scripts: { build: 'node build.js', start: 'node server.js' } }),
      'build.js': "require('fs').writeFileSync('built.txt', 'by npm run build')",
      'server.js': serverJs(7),
    });
    const created = await call('POST', '/api/v1/apps', { name: 'detected', server_id: serverId, source: { git: { url: node.url, ref: 'main' } } });
    expect(created.status).toBe(202);
    const app = await api.until<any>(`/api/v1/apps/${created.body.id}`, token, (a) => a.status === 'running' || a.status === 'failed', 90_000);
    expect(app.status).toBe('running');
    expect(await visit(app.url)).toEqual({ version: 7, built: 'by npm run build' });
    const [deployment] = await deployments(created.body.id);
    const log = await call('GET', `/api/v1/apps/${created.body.id}/deployments/${deployment.id}/log`);
    expect(log.text).toContain('detected node: build npm install && npm run build --if-present; start npm start');
  }, 120_000);

  it('answers only as the API document says', () => {
    expect(contractProblems).toEqual([]);
  });
});
