/**
 * @module Where the browser may be sent after a sign-in (`?redirect_uri=`): a path on cairn
 * itself, a URL whose origin is CAIRN_PUBLIC_URL's, or — for `cairn login`, a native app in
 * RFC 8252's sense — `http://127.0.0.1:<port>/cairn-login` or `http://[::1]:<port>/cairn-login`
 * on the user's own machine. Anything else (another host, a protocol-relative `//host`, a
 * backslash trick, a scheme such as `javascript:`) is refused, so a sign-in link cannot hand
 * its one-time code to someone else's site.
 */
import { ValidationError } from '../../model/errors.js';
import { PUBLIC_URL_SETTING } from '../../net/url-setting.js';

const MAX_LENGTH = 2048;

/** The target, checked; throws 422 naming `redirect_uri` and what it may be. */
export function checkedRedirectTarget(target: string, publicUrl: URL): string {
  const refuse = (why: string): never => {
    throw new ValidationError(`redirect_uri ${why}`, [{ pointer: '/redirect_uri', message: why }]);
  };
  if (target.length > MAX_LENGTH) refuse(`must be at most ${MAX_LENGTH} characters`);
  // A control character or backslash could make a browser read the target as another host.
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u001f\u007f\\]/.test(target)) refuse('must not contain control characters or backslashes');
  if (target.startsWith('/')) {
    if (target.startsWith('//')) refuse('must be a path (starting with a single /) or a URL at cairn\'s own origin');
    return target;
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return refuse('must be a path (starting with /) or an absolute URL');
  }
  if (url.origin !== publicUrl.origin && !isLoopbackLogin(url)) {
    refuse(`must be a path or a URL at ${publicUrl.origin} (the origin of ${PUBLIC_URL_SETTING}); ${url.origin === 'null' ? url.protocol : url.origin} is not allowed`);
  }
  return url.href;
}

/** The path `cairn login` listens on, on a loopback port of its own. */
export const LOOPBACK_LOGIN_PATH = '/cairn-login';

/** RFC 8252 §7.3: a loopback IP literal over http, any port, and the CLI's path only. */
function isLoopbackLogin(url: URL): boolean {
  return url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === '[::1]') && url.port !== '' && url.pathname === LOOPBACK_LOGIN_PATH && url.username === '' && url.password === '';
}

/** The target with the one-time code added to its query. */
export function withCode(target: string, publicUrl: URL, code: string): string {
  const url = new URL(target, publicUrl);
  url.searchParams.set('code', code);
  return target.startsWith('/') ? `${url.pathname}${url.search}${url.hash}` : url.href;
}
