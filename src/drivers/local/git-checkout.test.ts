/**
 * @module Tests of writing an app's git source out with isomorphic-git: a branch, a tag and a
 * commit of a repository on this host (executable bits kept, the repository untouched), and
 * clear errors for an unknown ref and for a directory that is no repository.
 */
import * as fs from 'node:fs';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { afterAll, describe, expect, it } from 'vitest';
import { startGitServer } from '../../../test/support/git-server.js';
import { checkOutGit } from './git-checkout.js';

const root = mkdtempSync(join(tmpdir(), 'cairn-git-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const repo = join(root, 'repo');
const author = { name: 'test', email: 'test@example.com' };

async function commitFile(path: string, text: string, mode?: number): Promise<string> {
  fs.mkdirSync(join(repo, path, '..'), { recursive: true });
  writeFileSync(join(repo, path), text);
  if (mode !== undefined) fs.chmodSync(join(repo, path), mode);
  await git.add({ fs, dir: repo, filepath: path });
  return git.commit({ fs, dir: repo, message: `write ${path}`, author });
}

describe('git checkout of an app source', () => {
  it('writes a branch, a tag and a commit, returning the commit', async () => {
    fs.mkdirSync(repo);
    await git.init({ fs, dir: repo, defaultBranch: 'main' });
    const first = await commitFile('app/run.sh', '#!/bin/sh\necho v1\n', 0o755);
    await git.annotatedTag({ fs, dir: repo, ref: 'v1', message: 'v1', tagger: author });
    const second = await commitFile('app/run.sh', '#!/bin/sh\necho v2\n', 0o755);

    const atMain = join(root, 'main');
    expect(await checkOutGit({ url: repo, ref: 'main' }, atMain)).toBe(second);
    expect(readFileSync(join(atMain, 'app', 'run.sh'), 'utf8')).toContain('v2');
    expect(statSync(join(atMain, 'app', 'run.sh')).mode & 0o111).not.toBe(0);

    const atTag = join(root, 'tag');
    expect(await checkOutGit({ url: `file://${repo}`, ref: 'v1' }, atTag)).toBe(first);
    expect(readFileSync(join(atTag, 'app', 'run.sh'), 'utf8')).toContain('v1');

    const atCommit = join(root, 'commit');
    expect(await checkOutGit({ url: repo, ref: first }, atCommit)).toBe(first);
    expect(await git.resolveRef({ fs, dir: repo, ref: 'HEAD' })).toBe(second); // the repository is untouched
  });

  it('says when the ref or the repository does not exist', async () => {
    await expect(checkOutGit({ url: repo, ref: 'no-such-branch' }, join(root, 'x'))).rejects.toThrow('ref "no-such-branch" is not a branch, tag or commit of the repository');
    await expect(checkOutGit({ url: root, ref: 'main' }, join(root, 'y'))).rejects.toThrow(`${root} is not a git repository`);
  });

  it('clones a branch, a tag and a commit over http from a real git server, and says when one is missing', async () => {
    const server = await startGitServer();
    try {
      const remote = server.createRepository('app', { 'run.sh': 'echo v1\n' });
      remote.tag('v1');
      const first = await git.resolveRef({ fs, gitdir: join(server.root, 'served', 'app.git'), ref: 'main' });
      const second = remote.commit({ 'run.sh': 'echo v2\n' }, 'v2');

      const atMain = join(root, 'http-main');
      expect(await checkOutGit({ url: remote.url, ref: 'main' }, atMain)).toBe(second);
      expect(readFileSync(join(atMain, 'run.sh'), 'utf8')).toBe('echo v2\n');
      expect(fs.existsSync(join(atMain, '.git'))).toBe(false);

      const atTag = join(root, 'http-tag');
      expect(await checkOutGit({ url: remote.url, ref: 'v1' }, atTag)).toBe(first);
      expect(readFileSync(join(atTag, 'run.sh'), 'utf8')).toBe('echo v1\n');

      const atCommit = join(root, 'http-commit');
      expect(await checkOutGit({ url: remote.url, ref: first }, atCommit)).toBe(first);
      expect(readFileSync(join(atCommit, 'run.sh'), 'utf8')).toBe('echo v1\n');

      await expect(checkOutGit({ url: remote.url, ref: 'no-such-branch' }, join(root, 'http-x'))).rejects.toThrow(
        `${remote.url} has no branch or tag named "no-such-branch"`,
      );
      await expect(checkOutGit({ url: `${server.base}/missing.git`, ref: 'main' }, join(root, 'http-y'))).rejects.toThrow(`${server.base}/missing.git`);
    } finally {
      await server.stop();
    }
  });
});
