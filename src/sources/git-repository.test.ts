/**
 * @module Fetching over smart HTTP from a real `git http-backend` on loopback: a branch, a tag and
 * a commit id each name the right commit; manifests are read from the commit under a path;
 * credentials are sent when the server asks, and every failure is worded for the user.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGitServer, type GitServer, type GitWorkingCopy } from '../../test/support/git-server.js';
import { loadGit } from '../git/isomorphic-git.js';
import { FetchError, GitRepository } from './git-repository.js';

let server: GitServer;
let privateServer: GitServer;
let repo: GitWorkingCopy;
let cache: string;
let first: string;

beforeAll(async () => {
  server = await startGitServer();
  privateServer = await startGitServer({ basicAuth: { username: 'ci', password: 'pa55' } });
  cache = mkdtempSync(join(tmpdir(), 'cairn-gitcache-'));
  repo = server.createRepository('infra', { 'deploy/a.yaml': 'a: 1\n', 'deploy/sub/b.yml': 'b: 2\n', 'deploy/README.md': 'no', 'other/c.yaml': 'c: 3\n', 'deploy/.hidden.yaml': 'h: 1\n' });
});

afterAll(async () => {
  await server.stop();
  await privateServer.stop();
  rmSync(cache, { recursive: true, force: true });
});

describe('GitRepository', () => {
  it('fetches a branch to its newest commit and reads only the manifests under the path', async () => {
    const repository = new GitRepository(join(cache, 'branch'));
    first = await repository.fetch(repo.url, 'main');
    expect(first).toMatch(/^[0-9a-f]{40}$/);
    const files = await repository.manifestFiles(first, 'deploy');
    expect(files).toEqual([{ file: 'deploy/a.yaml', text: 'a: 1\n' }, { file: 'deploy/sub/b.yml', text: 'b: 2\n' }]);
    expect((await repository.manifestFiles(first, '')).map((f) => f.file)).toEqual(['deploy/a.yaml', 'deploy/sub/b.yml', 'other/c.yaml']);
    const second = repo.commit({ 'deploy/a.yaml': 'a: 2\n' });
    expect(await repository.fetch(repo.url, 'main')).toBe(second);
    expect((await repository.manifestFiles(second, 'deploy'))[0]?.text).toBe('a: 2\n');
    expect((await repository.manifestFiles(first, 'deploy'))[0]?.text).toBe('a: 1\n');
  });

  it('reads from git only the manifest blobs that changed since the revision read last', async () => {
    const files = server.createRepository('many', { 'deploy/a.yaml': 'a: 1\n', 'deploy/b.yaml': 'b: 1\n', 'deploy/c.yaml': 'c: 1\n' });
    const repository = new GitRepository(join(cache, 'many'));
    const before = await repository.fetch(files.url, 'main');
    await repository.manifestFiles(before, 'deploy');
    const after = files.commit({ 'deploy/b.yaml': 'b: 2\n' });
    await repository.fetch(files.url, 'main');
    const { git } = await loadGit();
    const readBlob = vi.spyOn(git, 'readBlob');
    try {
      expect(await repository.manifestFiles(after, 'deploy')).toEqual([
        { file: 'deploy/a.yaml', text: 'a: 1\n' },
        { file: 'deploy/b.yaml', text: 'b: 2\n' },
        { file: 'deploy/c.yaml', text: 'c: 1\n' },
      ]);
      expect(readBlob).toHaveBeenCalledTimes(1);
      // and going back reads the old blob again
      expect((await repository.manifestFiles(before, 'deploy'))[1]).toEqual({ file: 'deploy/b.yaml', text: 'b: 1\n' });
      expect(readBlob).toHaveBeenCalledTimes(2);
    } finally {
      readBlob.mockRestore();
    }
  });

  it('fetches only the objects a new commit adds, not the whole repository again', async () => {
    const big = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`deploy/f-${i}.yaml`, `n: ${i}\nfiller: ${createHash('sha512').update(String(i)).digest('hex')}\n`]));
    const remote = server.createRepository('big', big);
    const gitdir = join(cache, 'big');
    const repository = new GitRepository(gitdir);
    await repository.fetch(remote.url, 'main');
    const packBytes = (): number => readdirSync(join(gitdir, 'objects', 'pack')).filter((f) => f.endsWith('.pack')).reduce((sum, f) => sum + statSync(join(gitdir, 'objects', 'pack', f)).size, 0);
    const first = packBytes();
    const next = remote.commit({ 'deploy/f-0.yaml': 'n: changed\n' });
    expect(await repository.fetch(remote.url, 'main')).toBe(next);
    // (the new commit and its trees, which list every file: not the 200 blobs again)
    expect(packBytes() - first).toBeLessThan(first / 4);
    expect((await repository.manifestFiles(next, 'deploy')).find((f) => f.file === 'deploy/f-0.yaml')?.text).toBe('n: changed\n');
  });

  it('fetches a tag and a commit id', async () => {
    const tagged = repo.commit({ 'deploy/a.yaml': 'a: 3\n' });
    repo.tag('v1');
    repo.commit({ 'deploy/a.yaml': 'a: 4\n' });
    expect(await new GitRepository(join(cache, 'tag')).fetch(repo.url, 'v1')).toBe(tagged);
    const byCommit = new GitRepository(join(cache, 'commit'));
    expect(await byCommit.fetch(repo.url, tagged)).toBe(tagged);
    expect((await byCommit.manifestFiles(tagged, 'deploy'))[0]?.text).toBe('a: 3\n');
  });

  it('says what is wrong: unknown branch, missing path, unknown repository, missing or wrong credentials', async () => {
    const repository = new GitRepository(join(cache, 'errors'));
    await expect(repository.fetch(repo.url, 'nope')).rejects.toThrow(/has no branch or tag named "nope"/);
    const head = await repository.fetch(repo.url, 'main');
    await expect(repository.manifestFiles(head, 'missing')).rejects.toThrow(/has no directory "missing"/);
    await expect(repository.fetch(`${server.base}/absent.git`, 'main')).rejects.toBeInstanceOf(FetchError);
    const secret = privateServer.createRepository('secret', { 'x.yaml': 'x: 1\n' });
    await expect(new GitRepository(join(cache, 'p1')).fetch(secret.url, 'main')).rejects.toThrow(/needs credentials/);
    await expect(new GitRepository(join(cache, 'p2')).fetch(secret.url, 'main', { type: 'basic', username: 'ci', password: 'wrong' })).rejects.toThrow(/refused the source's credentials/);
    expect(await new GitRepository(join(cache, 'p3')).fetch(secret.url, 'main', { type: 'basic', username: 'ci', password: 'pa55' })).toMatch(/^[0-9a-f]{40}$/);
  });

  it('sends a token as GitHub and GitLab take it over HTTPS (as the password of x-access-token)', async () => {
    const tokenServer = await startGitServer({ basicAuth: { username: 'x-access-token', password: 'ghp_token123' } });
    try {
      const repository = tokenServer.createRepository('tok', { 'x.yaml': 'x: 1\n' });
      expect(await new GitRepository(join(cache, 't1')).fetch(repository.url, 'main', { type: 'token', token: 'ghp_token123' })).toMatch(/^[0-9a-f]{40}$/);
      await expect(new GitRepository(join(cache, 't2')).fetch(repository.url, 'main', { type: 'token', token: 'wrong' })).rejects.toThrow(/refused the source's credentials/);
    } finally {
      await tokenServer.stop();
    }
  });
});
