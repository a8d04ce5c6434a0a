/**
 * @module A git source's repository, fetched with isomorphic-git over HTTP(S) into a bare cache
 * under the data dir: fetch a ref (branch, tag or commit id) to the commit it names, and read the
 * manifest files (*.yaml, *.yml) under a path of that commit straight from git's objects.
 */
import fs from 'node:fs';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import type { ManifestSource } from '../model/manifest-files.js';
import type { SourceCredentials } from '../store/sources.js';

const COMMIT_ID = /^[0-9a-f]{40}$/i;
const MANIFEST_FILE = /\.ya?ml$/i;

/** Fetching failed: the message says why, in words a user can act on. */
export class FetchError extends Error {
  override readonly name = 'FetchError';
}

function onAuthFor(credentials: SourceCredentials | undefined): git.AuthCallback | undefined {
  if (!credentials) return undefined;
  return () => (credentials.type === 'token' ? { username: 'x-access-token', password: credentials.token } : { username: credentials.username, password: credentials.password });
}

function describeFetchFailure(url: string, ref: string, error: unknown, credentials: SourceCredentials | undefined): string {
  const status = (error as { data?: { statusCode?: number } }).data?.statusCode;
  const code = (error as { code?: string }).code;
  if (status === 401 || status === 403 || code === 'UserCanceledError') {
    return credentials ? `${url} refused the source's credentials (HTTP ${status ?? 401}); update them` : `${url} needs credentials (HTTP ${status ?? 401}); give the source a token or basic auth`;
  }
  if (status === 404) return `${url} was not found (HTTP 404); check the url`;
  if (code === 'NotFoundError') return `${url} has no branch or tag named "${ref}"`;
  const message = error instanceof Error ? error.message : String(error);
  return `fetching ${url} failed: ${message}`;
}

export class GitRepository {
  /** Parsed objects shared between calls, as isomorphic-git recommends for speed. */
  private readonly cache: object = {};

  constructor(private readonly gitdir: string) {}

  /** Fetches `ref` from `url` and returns the commit id it names now. */
  async fetch(url: string, ref: string, credentials?: SourceCredentials): Promise<string> {
    await fs.promises.mkdir(this.gitdir, { recursive: true });
    if (!fs.existsSync(`${this.gitdir}/HEAD`)) await git.init({ fs, gitdir: this.gitdir, bare: true });
    await git.addRemote({ fs, gitdir: this.gitdir, remote: 'origin', url, force: true });
    const byCommit = COMMIT_ID.test(ref);
    let fetched;
    try {
      fetched = await git.fetch({
        fs, http, gitdir: this.gitdir, remote: 'origin', cache: this.cache,
        ref: byCommit ? 'HEAD' : ref, singleBranch: !byCommit, tags: byCommit,
        onAuth: onAuthFor(credentials),
        onAuthFailure: () => ({ cancel: true }),
      });
    } catch (error) {
      throw new FetchError(describeFetchFailure(url, ref, error, credentials));
    }
    const oid = byCommit ? ref.toLowerCase() : fetched.fetchHead;
    if (!oid) throw new FetchError(`${url} is empty: it has no commits`);
    return this.peelToCommit(oid, url, ref);
  }

  /** The manifest files under `path` at `commit`, in path order, named by their path in the repository. */
  async manifestFiles(commit: string, path: string): Promise<ManifestSource[]> {
    const files: ManifestSource[] = [];
    let root: string;
    try {
      root = path === '' ? (await git.readCommit({ fs, gitdir: this.gitdir, oid: commit, cache: this.cache })).commit.tree
        : (await git.readTree({ fs, gitdir: this.gitdir, oid: commit, filepath: path, cache: this.cache })).oid;
    } catch {
      throw new FetchError(`the repository has no directory "${path}" at commit ${commit.slice(0, 12)}`);
    }
    await this.collect(root, path, files);
    return files;
  }

  private async collect(tree: string, prefix: string, into: ManifestSource[]): Promise<void> {
    const { tree: entries } = await git.readTree({ fs, gitdir: this.gitdir, oid: tree, cache: this.cache });
    const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    for (const entry of sorted) {
      if (entry.path.startsWith('.')) continue;
      const full = prefix === '' ? entry.path : `${prefix}/${entry.path}`;
      if (entry.type === 'tree') await this.collect(entry.oid, full, into);
      else if (entry.type === 'blob' && MANIFEST_FILE.test(entry.path)) {
        const { blob } = await git.readBlob({ fs, gitdir: this.gitdir, oid: entry.oid, cache: this.cache });
        into.push({ file: full, text: Buffer.from(blob).toString('utf8') });
      }
    }
  }

  private async peelToCommit(oid: string, url: string, ref: string): Promise<string> {
    let current = oid;
    for (let depth = 0; depth < 10; depth++) {
      let object;
      try {
        object = await git.readObject({ fs, gitdir: this.gitdir, oid: current, cache: this.cache });
      } catch {
        throw new FetchError(`${url} has no commit ${ref} on any branch or tag`);
      }
      if (object.type === 'commit') return current;
      if (object.type !== 'tag') break;
      current = (object.object as { object: string }).object;
    }
    throw new FetchError(`"${ref}" in ${url} does not name a commit`);
  }
}
