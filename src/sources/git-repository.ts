/**
 * @module A git source's repository, fetched over HTTP(S) into a bare cache under the data dir
 * (see git/fetch-ref.ts): fetch a ref (branch, tag or commit id) to the commit it names, and read
 * the manifest files (*.yaml, *.yml) under a path of that commit straight from git's objects
 * (a blob read for the previous revision is not read again).
 */
import fs from 'node:fs';
import { FetchError, fetchRef, type FetchRequest } from '../git/fetch-ref.js';
import { loadGit } from '../git/isomorphic-git.js';
import type { ManifestSource } from '../model/manifest-files.js';
import type { SourceCredentials } from '../store/sources.js';

const MANIFEST_FILE = /\.ya?ml$/i;

export { FetchError };

function basicAuthFor(credentials: SourceCredentials | undefined): FetchRequest['auth'] {
  if (!credentials) return undefined;
  return credentials.type === 'token' ? { username: 'x-access-token', password: credentials.token } : { username: credentials.username, password: credentials.password };
}

export class GitRepository {
  /** Parsed objects shared between calls, as isomorphic-git recommends for speed. */
  private readonly cache: object = {};
  /**
   * The text of each manifest blob of the revision read last, by blob id (a hash of its content),
   * so that the next revision reads from git only the files that changed.
   */
  private blobTexts = new Map<string, string>();

  constructor(private readonly gitdir: string) {}

  /** Fetches `ref` from `url` and returns the commit id it names now. */
  fetch(url: string, ref: string, credentials?: SourceCredentials): Promise<string> {
    return fetchRef({
      gitdir: this.gitdir, url, ref, cache: this.cache, auth: basicAuthFor(credentials),
      credentialsOwner: "the source's", missingCredentialsHint: 'give the source a token or basic auth',
    });
  }

  /** The manifest files under `path` at `commit`, in path order, named by their path in the repository. */
  async manifestFiles(commit: string, path: string): Promise<ManifestSource[]> {
    const { git } = await loadGit();
    const files: ManifestSource[] = [];
    let root: string;
    try {
      root = path === '' ? (await git.readCommit({ fs, gitdir: this.gitdir, oid: commit, cache: this.cache })).commit.tree
        : (await git.readTree({ fs, gitdir: this.gitdir, oid: commit, filepath: path, cache: this.cache })).oid;
    } catch {
      throw new FetchError(`the repository has no directory "${path}" at commit ${commit.slice(0, 12)}`);
    }
    const texts = new Map<string, string>();
    await this.collect(root, path, files, texts);
    this.blobTexts = texts;
    return files;
  }

  private async collect(tree: string, prefix: string, into: ManifestSource[], texts: Map<string, string>): Promise<void> {
    const { git } = await loadGit();
    const { tree: entries } = await git.readTree({ fs, gitdir: this.gitdir, oid: tree, cache: this.cache });
    const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    for (const entry of sorted) {
      if (entry.path.startsWith('.')) continue;
      const full = prefix === '' ? entry.path : `${prefix}/${entry.path}`;
      if (entry.type === 'tree') await this.collect(entry.oid, full, into, texts);
      else if (entry.type === 'blob' && MANIFEST_FILE.test(entry.path)) {
        const text = texts.get(entry.oid) ?? this.blobTexts.get(entry.oid) ?? Buffer.from((await git.readBlob({ fs, gitdir: this.gitdir, oid: entry.oid, cache: this.cache })).blob).toString('utf8');
        texts.set(entry.oid, text);
        into.push({ file: full, text });
      }
    }
  }
}
