/**
 * @module Fetching one ref of a remote repository — a branch, a tag or a commit id — over
 * HTTP(S) with isomorphic-git into a bare git dir, down to the commit it names. Shared by git
 * sources and the local runtime's app checkouts; a failure is a FetchError a user can act on.
 */
import fs from 'node:fs';
import { outboundRefusal } from '../net/guarded-fetch.js';
import { loadGit, type Git } from './isomorphic-git.js';

const COMMIT_ID = /^[0-9a-f]{40}$/i;

/** Fetching failed: the message says why, in words a user can act on. */
export class FetchError extends Error {
  override readonly name = 'FetchError';
}

export interface FetchRequest {
  /** The bare git dir fetched into (made when missing). */
  gitdir: string;
  url: string;
  ref: string;
  /** Basic-auth credentials for the remote, when it needs them. */
  auth?: { username: string; password: string };
  /** Whose credentials these are, for messages ("the source's"; default "the"). */
  credentialsOwner?: string;
  /** What to do when the remote wants credentials and none were given. */
  missingCredentialsHint?: string;
  /** isomorphic-git's object cache, shared between calls on the same git dir. */
  cache?: object;
}

/** Fetches `ref` from `url` into `gitdir` and returns the commit id it names now. */
export async function fetchRef(request: FetchRequest): Promise<string> {
  const { gitdir, url, ref, auth, cache = {} } = request;
  const { git, http } = await loadGit();
  await fs.promises.mkdir(gitdir, { recursive: true });
  if (!fs.existsSync(`${gitdir}/HEAD`)) await git.init({ fs, gitdir, bare: true });
  await git.addRemote({ fs, gitdir, remote: 'origin', url, force: true });
  const byCommit = COMMIT_ID.test(ref);
  let fetched;
  try {
    fetched = await git.fetch({
      fs, http, gitdir, remote: 'origin', cache,
      ref: byCommit ? 'HEAD' : ref, singleBranch: !byCommit, tags: byCommit,
      onAuth: auth ? () => auth : undefined,
      onAuthFailure: () => ({ cancel: true }),
    });
  } catch (error) {
    throw new FetchError(describeFetchFailure(request, error));
  }
  const oid = byCommit ? ref.toLowerCase() : fetched.fetchHead;
  if (!oid) throw new FetchError(`${url} is empty: it has no commits`);
  if (!byCommit) await rememberFetched(git, gitdir, ref, oid);
  return peelToCommit(git, gitdir, cache, oid, url, ref);
}

/**
 * Notes what `ref` was fetched as under the name isomorphic-git expands `ref` to (refs/heads/…),
 * so that the next fetch of it tells the remote what the cache already holds and gets only the
 * new objects: it looks for its "haves" there, not under refs/remotes/origin/, where it keeps the
 * fetched ref. Best effort: without it the next fetch downloads everything again, as before.
 */
async function rememberFetched(git: Git, gitdir: string, ref: string, oid: string): Promise<void> {
  try {
    await git.writeRef({ fs, gitdir, ref: ref.startsWith('refs/') ? ref : `refs/heads/${ref}`, value: oid, force: true });
  } catch {
    // a name git refuses as a local ref: fetch everything next time
  }
}

function describeFetchFailure(request: FetchRequest, error: unknown): string {
  const { url, ref, auth, credentialsOwner = 'the', missingCredentialsHint } = request;
  const refused = outboundRefusal(error);
  if (refused) return `fetching ${url} refused: ${refused.message}`;
  const status = (error as { data?: { statusCode?: number } }).data?.statusCode;
  const code = (error as { code?: string }).code;
  if (status === 401 || status === 403 || code === 'UserCanceledError') {
    return auth
      ? `${url} refused ${credentialsOwner} credentials (HTTP ${status ?? 401}); update them`
      : `${url} needs credentials (HTTP ${status ?? 401})${missingCredentialsHint ? `; ${missingCredentialsHint}` : ''}`;
  }
  if (status === 404) return `${url} was not found (HTTP 404); check the url`;
  if (code === 'NotFoundError') return `${url} has no branch or tag named "${ref}"`;
  if (code === 'SmartHttpError') return `${url} did not answer with git's smart HTTP protocol; is it the repository's clone URL?`;
  // isomorphic-git quotes what the remote answered (a page that is not git's protocol): one line of it at most.
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
  return `fetching ${url} failed: ${message}`;
}

async function peelToCommit(git: Git, gitdir: string, cache: object, oid: string, url: string, ref: string): Promise<string> {
  let current = oid;
  for (let depth = 0; depth < 10; depth++) {
    let object;
    try {
      object = await git.readObject({ fs, gitdir, oid: current, cache });
    } catch {
      throw new FetchError(`${url} has no commit ${ref} on any branch or tag`);
    }
    if (object.type === 'commit') return current;
    if (object.type !== 'tag') break;
    current = (object.object as { object: string }).object;
  }
  throw new FetchError(`"${ref}" in ${url} does not name a commit`);
}
