/**
 * @module What a git source's url and path may be: cairn fetches over HTTP(S) only (with a token
 * or basic credentials); ssh and other transports get an error saying what is supported. The path
 * inside the repository is normalised (`./deploy/` → `deploy`) and may not leave it.
 */
import { ValidationError } from '../model/errors.js';

const SCP_LIKE = /^[\w.-]+@[\w.-]+:/;

/** The url, checked; a ValidationError on `/url` naming what is supported otherwise. */
export function checkGitUrl(url: string): string {
  const supported = 'cairn fetches git repositories over http:// or https:// (with a token or basic credentials for private ones)';
  if (SCP_LIKE.test(url) || url.startsWith('ssh://') || url.startsWith('git+ssh://')) {
    const message = `ssh urls are not supported: ${supported}; use the repository's https url, e.g. https://github.com/acme/infra.git`;
    throw new ValidationError(`url: ${message}`, [{ pointer: '/url', message }]);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    const message = `"${url}" is not a url; ${supported}`;
    throw new ValidationError(`url: ${message}`, [{ pointer: '/url', message }]);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    const message = `${parsed.protocol.replace(/:$/, '')} urls are not supported: ${supported}`;
    throw new ValidationError(`url: ${message}`, [{ pointer: '/url', message }]);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    const message = 'put credentials in `auth`, not in the url (they would be stored and shown in clear)';
    throw new ValidationError(`url: ${message}`, [{ pointer: '/url', message }]);
  }
  return url;
}

/** The path inside the repository without `./`, leading or trailing slashes; `''` is the root. */
export function normaliseRepoPath(path: string): string {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) {
    const message = 'must stay inside the repository (no `..`)';
    throw new ValidationError(`path: ${message}`, [{ pointer: '/path', message }]);
  }
  return parts.join('/');
}
