/**
 * @module GitOps end to end: a real `cairn serve`, a real git server (git http-backend behind a
 * node server on loopback), commits made with the git CLI. Commit → converge; an invalid
 * manifest → nothing applied, every error on the source, the previous revision in force; fix →
 * converge; delete a file → pruned; suspend → nothing applied until resumed; a resource the API
 * owns → a conflict on both sides; a webhook with a bad signature → 401 and nothing triggered;
 * `cairn plan --server --source` shows a pull request's deleted files as deletions.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are JSON checked by assertions and by the OpenAPI document */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubSignature } from '../src/sources/webhook-signature.js';
import { contractProblems, startApiServer, type ApiAnswer, type ApiServer } from './support/api-server.js';
import { runCairn } from './support/cairn-process.js';
import { startGitServer, type GitServer, type GitWorkingCopy } from './support/git-server.js';

const PASSWORD = 'correct horse battery staple';
const provider = `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n`;
const server = (name: string, size = 'small'): string =>
  `apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: ${name}\nspec:\n  provider: sandbox\n  region: eu-1\n  size: ${size}\n`;

let api: ApiServer;
let gitServer: GitServer;
let repo: GitWorkingCopy;
let token = '';
let sourceId = '';
let webhookSecret = '';
const commits: string[] = [];

const call = (method: string, path: string, body?: unknown): Promise<ApiAnswer> => api.call(method, path, { token, ...(body !== undefined ? { body } : {}) });
const source = async (): Promise<any> => (await call('GET', `/api/v1/sources/${sourceId}`)).body;
const untilSource = (done: (s: any) => boolean): Promise<any> => api.until(`/api/v1/sources/${sourceId}`, token, done, 30_000);
const servers = async (): Promise<any[]> => (await call('GET', '/api/v1/servers')).body.items;
const push = (body: string, headers: Record<string, string>): Promise<ApiAnswer> =>
  api.call('POST', `/api/v1/sources/${sourceId}/webhook`, { raw: { contentType: 'application/json', text: body }, headers });

beforeAll(async () => {
  gitServer = await startGitServer();
  repo = gitServer.createRepository('infra', { 'deploy/provider.yaml': provider, 'deploy/web-1.yaml': server('web-1'), 'deploy/web-2.yaml': server('web-2'), 'README.md': '# infra\n' });
  api = await startApiServer();
  await api.addUser('owner@example.com', PASSWORD, 'owner');
  ({ access_token: token } = await api.login('owner@example.com', PASSWORD));
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await gitServer?.stop();
});

describe('a git source', () => {
  it('refuses an ssh url, saying what is supported', async () => {
    const answer = await call('POST', '/api/v1/sources', { name: 'ssh', url: 'git@github.com:acme/infra.git' });
    expect(answer.status).toBe(422);
    expect(answer.body.errors[0]).toMatchObject({ pointer: '/url' });
    expect(answer.body.errors[0].message).toMatch(/ssh urls are not supported.*https?:\/\//);
  });

  it('converges on the commit: the source records it and its servers run, each stamped with it', async () => {
    const created = await call('POST', '/api/v1/sources', { name: 'infra', url: repo.url, ref: 'main', path: 'deploy', interval_seconds: 3600 });
    expect(created.status).toBe(201);
    expect(created.body.webhook_secret).toMatch(/^[\w-]{20,}$/);
    expect(created.body).toMatchObject({ name: 'infra', ref: 'main', path: 'deploy', interval_seconds: 3600, prune: true, suspended: false, auth: null });
    sourceId = created.body.id;
    webhookSecret = created.body.webhook_secret;
    expect(JSON.stringify(await source())).not.toContain(webhookSecret);
    const head = (await runGit()).head;
    commits.push(head);
    const synced = await untilSource((s) => s.revision === head);
    expect(synced).toMatchObject({ status: 'ready', errors: [] });
    expect(synced.conditions[0]).toMatchObject({ type: 'Ready', status: 'True', reason: 'Applied' });
    await api.until('/api/v1/servers', token, (b: any) => b.items.length === 2 && b.items.every((s: any) => s.status === 'running'), 30_000);
    expect((await servers()).every((s) => s.source === 'git')).toBe(true);
    const got = await runCairn(['get', 'servers', '-o', 'json', '--data-dir', api.dataDir]);
    const items = JSON.parse(got.stdout).items as any[];
    expect(items.map((r) => r.metadata.annotations['cairn.dev/revision'])).toEqual([head, head]);
  });

  it('answers a webhook with a bad signature 401, and it triggers nothing (nor does a ping)', async () => {
    const next = repo.commit({ 'deploy/web-1.yaml': server('web-1', 'medium') }, 'resize web-1');
    const body = JSON.stringify({ ref: 'refs/heads/main', after: next });
    const forged = await push(body, { 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': githubSignature('not-the-secret', body) });
    expect(forged.status).toBe(401);
    expect(forged.body.code).toBe('unauthorized');
    const wrongToken = await push(body, { 'X-Gitlab-Event': 'Push Hook', 'X-Gitlab-Token': 'not-the-secret' });
    expect(wrongToken.status).toBe(401);
    expect((await push(body, {})).status).toBe(401);
    const ping = JSON.stringify({ zen: 'Keep it logically awesome.' });
    const pinged = await push(ping, { 'X-GitHub-Event': 'ping', 'X-Hub-Signature-256': githubSignature(webhookSecret, ping) });
    expect(pinged.status).toBe(200);
    expect(pinged.body).toMatchObject({ triggered: false, sender: 'github' });
    // The loop reads sync requests every 250 ms; a second later it has still not looked at the commit.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await source()).attempted_revision).toBe(commits[0]);
    commits.push(next);
  });

  it('rejects a commit holding an invalid manifest: nothing applied, every error on the source, the previous revision in force', async () => {
    const bad = repo.commit({ 'deploy/broken.yaml': `${server('web-3')}  state: sideways\n---\n${server('web-4').replace('region: eu-1', 'region: eu-1\n  colour: red')}` }, 'add broken servers');
    const body = JSON.stringify({ ref: 'refs/heads/main', after: bad });
    const signed = await push(body, { 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': githubSignature(webhookSecret, body) });
    expect(signed.status).toBe(202);
    expect(signed.body).toMatchObject({ triggered: true, sender: 'github' });
    const rejected = await untilSource((s) => s.attempted_revision === bad);
    expect(rejected).toMatchObject({ status: 'failed', revision: commits[0] });
    expect(rejected.errors).toHaveLength(2);
    expect(rejected.errors[0]).toMatch(/^deploy\/broken\.yaml:\d+:\d+ Server\/web-3 spec\.state: /);
    expect(rejected.errors[1]).toMatch(/^deploy\/broken\.yaml:\d+:\d+ Server\/web-4 spec.*colour/);
    expect(rejected.conditions[0]).toMatchObject({ type: 'Ready', status: 'False', reason: 'ValidationFailed' });
    expect(rejected.conditions[0].message).toContain(rejected.errors[0]);
    expect(rejected.conditions[0].message).toContain(rejected.errors[1]);
    // Neither the resize of the commit before it nor the new servers were applied.
    expect((await servers()).map((s) => [s.name, s.size]).sort()).toEqual([['web-1', 'small'], ['web-2', 'small']]);
  });

  it('converges once the manifest is fixed (GitLab webhook)', async () => {
    const fixed = repo.commit({ 'deploy/broken.yaml': null, 'deploy/web-3.yaml': server('web-3') }, 'fix');
    const answer = await push(JSON.stringify({ ref: 'refs/heads/main', after: fixed }), { 'X-Gitlab-Event': 'Push Hook', 'X-Gitlab-Token': webhookSecret });
    expect(answer.status).toBe(202);
    expect(answer.body.sender).toBe('gitlab');
    const synced = await untilSource((s) => s.revision === fixed);
    expect(synced).toMatchObject({ status: 'ready', errors: [] });
    const converged = await api.until('/api/v1/servers', token, (b: any) => b.items.length === 3 && b.items.every((s: any) => s.status === 'running' && s.observed_generation === s.generation), 30_000);
    expect(converged.items.map((s: any) => [s.name, s.size]).sort()).toEqual([['web-1', 'medium'], ['web-2', 'small'], ['web-3', 'small']]);
    commits.push(fixed);
  });

  it('prunes the resource whose file was deleted', async () => {
    const deleted = repo.commit({ 'deploy/web-2.yaml': null }, 'retire web-2');
    expect((await call('POST', `/api/v1/sources/${sourceId}/sync`)).status).toBe(202);
    await untilSource((s) => s.revision === deleted);
    const after = await api.until('/api/v1/servers', token, (b: any) => !b.items.some((s: any) => s.name === 'web-2'), 30_000);
    expect(after.items.map((s: any) => s.name).sort()).toEqual(['web-1', 'web-3']);
  });

  it('applies nothing while suspended, and catches up when resumed', async () => {
    const suspended = await call('PATCH', `/api/v1/sources/${sourceId}`, { suspended: true });
    expect(suspended.status).toBe(200);
    expect(suspended.body.status).toBe('suspended');
    const added = repo.commit({ 'deploy/web-5.yaml': server('web-5') }, 'add web-5');
    await call('POST', `/api/v1/sources/${sourceId}/sync`);
    const waiting = await untilSource((s) => s.conditions[0]?.reason === 'Suspended');
    expect(waiting.revision).not.toBe(added);
    expect((await servers()).map((s) => s.name)).not.toContain('web-5');
    await call('PATCH', `/api/v1/sources/${sourceId}`, { suspended: false });
    await untilSource((s) => s.revision === added && s.status === 'ready');
    expect((await servers()).map((s) => s.name)).toContain('web-5');
  });

  it('reports a resource another owner holds as a conflict on the source and on the resource, and takes nothing over', async () => {
    const providerId = (await call('GET', '/api/v1/providers')).body.items[0].id;
    const made = await call('POST', '/api/v1/servers', { name: 'api-made', provider_id: providerId, region: 'eu-1', size: 'small' });
    expect(made.status).toBe(202);
    const claim = repo.commit({ 'deploy/api-made.yaml': server('api-made', 'large') }, 'claim api-made');
    await call('POST', `/api/v1/sources/${sourceId}/sync`);
    const conflicted = await untilSource((s) => s.attempted_revision === claim);
    expect(conflicted).toMatchObject({ status: 'failed', conflicts: [{ kind: 'Server', name: 'api-made', owner: 'api', declared_by: `git:${sourceId}` }] });
    expect(conflicted.conditions[0].reason).toBe('OwnershipConflict');
    const events = (await call('GET', `/api/v1/events?resource_id=${made.body.id}`)).body.items;
    expect(events.some((e: any) => e.reason === 'OwnershipConflict' && e.message.includes('git source infra'))).toBe(true);
    const kept = (await call('GET', `/api/v1/servers/${made.body.id}`)).body;
    expect(kept).toMatchObject({ source: 'api', size: 'small' });
  });

});

async function runGit(): Promise<{ head: string }> {
  const { git } = await import('./support/git-server.js');
  return { head: git(`${gitServer.root}/work/infra`, ['rev-parse', 'HEAD']) };
}

describe('cairn plan --server for a pull request', () => {
  let ciToken = '';
  let checkout = '';

  beforeAll(async () => {
    const created = await call('POST', '/api/v1/tokens', { name: 'ci', role: 'viewer', expires_in_days: 1 });
    ciToken = created.body.token;
    // The pull request's files: the repository's deploy directory, without the conflicting claim.
    checkout = mkdtempSync(join(tmpdir(), 'cairn-pr-'));
    cpSync(join(gitServer.root, 'work', 'infra', 'deploy'), checkout, { recursive: true });
    rmSync(join(checkout, 'api-made.yaml'));
  });
  afterAll(() => rmSync(checkout, { recursive: true, force: true }));

  const plan = (...extra: string[]): ReturnType<typeof runCairn> =>
    runCairn(['plan', '--server', api.base, '-f', checkout, '--source', 'infra', '--detailed-exitcode', ...extra], { env: { CAIRN_TOKEN: ciToken } });

  it('shows no changes for the files in force (exit 0)', async () => {
    const result = await plan();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/No changes/);
  });

  it('shows a file the pull request deletes as a deletion, and an edit as an update, in Markdown (exit 2)', async () => {
    rmSync(join(checkout, 'web-5.yaml'));
    writeFileSync(join(checkout, 'web-3.yaml'), readFileSync(join(checkout, 'web-3.yaml'), 'utf8').replace('size: small', 'size: large'));
    const result = await plan('-o', 'markdown');
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toMatch(/^#+ /m);
    expect(result.stdout).toContain('**Plan: 0 to create, 1 to update, 0 to replace, 1 to delete.**');
    expect(result.stdout).toContain('| - delete | Server | default | web-5 | (deleted) |');
    expect(result.stdout).toContain('| ~ update | Server | default | web-3 | spec.size |');
  });

  it('fails on an invalid manifest with file:line, before asking the server (exit 1)', async () => {
    writeFileSync(join(checkout, 'broken.yaml'), `${server('web-9')}  state: sideways\n`);
    const result = await plan('-o', 'markdown');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/broken\.yaml:\d+:\d+ Server\/web-9 spec\.state: /);
    rmSync(join(checkout, 'broken.yaml'));
  });

  it('says what is wrong with an unknown source or a bad token', async () => {
    const unknown = await runCairn(['plan', '--server', api.base, '--token', ciToken, '-f', checkout, '--source', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/answered 422: source: no source named nope/);
    const forged = await runCairn(['plan', '--server', api.base, '--token', 'not-a-token', '-f', checkout]);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(/answered 401/);
  });
});

describe('deleting the source', () => {
  it('is refused while something outside it uses what it set, and changes nothing', async () => {
    const refused = await call('DELETE', `/api/v1/sources/${sourceId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/Provider\/sandbox is still used by Server\/api-made/);
    expect((await call('GET', `/api/v1/sources/${sourceId}`)).status).toBe(200);
  });

  it('deletes what it set (prune is on) and drops its repository cache', async () => {
    const apiMade = (await servers()).find((s) => s.name === 'api-made');
    expect((await call('DELETE', `/api/v1/servers/${apiMade.id}`)).status).toBe(202);
    await api.until('/api/v1/servers', token, (b: any) => !b.items.some((s: any) => s.name === 'api-made'), 30_000);
    const cache = join(api.dataDir, 'sources', sourceId);
    expect(existsSync(cache)).toBe(true);
    expect((await call('DELETE', `/api/v1/sources/${sourceId}`)).status).toBe(204);
    expect((await call('GET', `/api/v1/sources/${sourceId}`)).status).toBe(404);
    await api.until('/api/v1/servers', token, (b: any) => b.items.length === 0, 30_000);
    await api.until('/api/v1/providers', token, (b: any) => b.items.length === 0, 30_000);
    for (let i = 0; i < 300 && existsSync(cache); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(existsSync(cache)).toBe(false);
  });
});

describe('every answer', () => {
  it('answered every request as the OpenAPI document says', () => {
    expect(contractProblems).toEqual([]);
  });
});
