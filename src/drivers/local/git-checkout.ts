/**
 * @module An app's git source at a ref, written into a release directory with isomorphic-git
 * (no git binary needed): an http(s) URL has the ref (branch, tag or commit id) fetched into a
 * scratch bare repository (through the outbound guard), a repository on this host (a path or
 * file:// URL, inside CAIRN_LOCAL_SOURCE_DIRS) is read in place without being touched; either way the ref's tree is written out and its commit recorded.
 */
import * as fs from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchRef } from '../../git/fetch-ref.js';
import { loadGit } from '../../git/isomorphic-git.js';
import { allowedSourcePath } from '../../security/host-access.js';

export interface GitSource {
  url: string;
  ref: string;
}

/** The repository's git dir when `url` names one on this host; undefined for a remote URL. */
function localGitDir(url: string): string | undefined {
  if (/^https?:\/\//.test(url)) return undefined;
  const given = url.startsWith('file://') ? fileURLToPath(url) : url;
  const allowed = allowedSourcePath(given);
  if ('refusal' in allowed) throw new Error(allowed.refusal.replace('spec.source.path', 'the git repository'));
  const { path } = allowed;
  if (fs.existsSync(join(path, '.git'))) return join(path, '.git');
  if (fs.existsSync(join(path, 'HEAD')) && fs.existsSync(join(path, 'objects'))) return path;
  throw new Error(`${url} is not a git repository (no .git in it, and not a bare repository)`);
}

async function resolveCommit(gitdir: string, ref: string): Promise<string> {
  const { git } = await loadGit();
  let oid: string;
  if (/^[0-9a-f]{40}$/.test(ref)) oid = ref;
  else {
    try {
      oid = await git.resolveRef({ fs, gitdir, ref });
    } catch {
      throw new Error(`ref "${ref}" is not a branch, tag or commit of the repository`);
    }
  }
  return (await git.readCommit({ fs, gitdir, oid })).oid;
}

async function writeTree(gitdir: string, oid: string, dir: string): Promise<void> {
  const { git } = await loadGit();
  await mkdir(dir, { recursive: true });
  const { tree } = await git.readTree({ fs, gitdir, oid });
  const seen = new Set<string>();
  for (const entry of tree) {
    // A crafted tree could name `..`, hold a path, or name one entry twice (a symbolic link, then
    // a directory of that name to write through it): none is written, the checkout fails.
    if (entry.path === '' || entry.path === '.' || entry.path === '..' || /[/\\\0]/.test(entry.path) || seen.has(entry.path)) {
      throw new Error(`the repository's tree ${oid} has an entry named ${JSON.stringify(entry.path)} that cannot be checked out safely`);
    }
    seen.add(entry.path);
    const target = join(dir, entry.path);
    if (entry.type === 'tree') await writeTree(gitdir, entry.oid, target);
    else if (entry.type === 'blob') {
      const { blob } = await git.readBlob({ fs, gitdir, oid: entry.oid });
      if (entry.mode === '120000') await symlink(Buffer.from(blob).toString('utf8'), target);
      else {
        await writeFile(target, blob);
        if (entry.mode === '100755') await chmod(target, 0o755);
      }
    }
    // entry.type === 'commit' is a submodule: not fetched
  }
}

/** Writes the source at its ref into `dir`; returns the commit. */
export async function checkOutGit(source: GitSource, dir: string): Promise<string> {
  const gitdir = localGitDir(source.url);
  if (gitdir !== undefined) {
    const commit = await resolveCommit(gitdir, source.ref);
    await writeTree(gitdir, commit, dir);
    return commit;
  }
  // A remote is fetched at the ref into a bare git dir beside the release, written out, and dropped.
  await mkdir(dirname(dir), { recursive: true });
  const fetched = await mkdtemp(join(dirname(dir), '.fetch-'));
  try {
    const commit = await fetchRef({
      gitdir: fetched, url: source.url, ref: source.ref,
      missingCredentialsHint: "an app's git source is fetched without credentials: make the repository readable, or use a path source",
    });
    await writeTree(fetched, commit, dir);
    return commit;
  } finally {
    await rm(fetched, { recursive: true, force: true });
  }
}
