/**
 * @module Where Stripe may send a browser back to: checkout's success and cancel URLs and the
 * portal's return URL must be on CAIRN_PUBLIC_URL's origin (or on localhost when it is unset),
 * so cairn never becomes an open redirect. A URL elsewhere is a 422 naming the field.
 */
import { ValidationError } from '../model/errors.js';
import { PUBLIC_URL_SETTING } from '../net/url-setting.js';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Checks each named URL; throws one ValidationError listing every field that is not allowed. */
export function checkReturnUrls(urls: Readonly<Record<string, string>>, publicUrl: URL | undefined): void {
  const issues = Object.entries(urls).flatMap(([field, text]) => {
    const why = refusal(text, publicUrl);
    return why === undefined ? [] : [{ pointer: `/${field}`, message: why }];
  });
  if (issues.length > 0) throw new ValidationError(issues.map((i) => `${i.pointer.slice(1)} ${i.message}`).join('; '), issues);
}

function refusal(text: string, publicUrl: URL | undefined): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `must be an absolute URL, got "${text}"`;
  }
  if (publicUrl) {
    return url.origin === publicUrl.origin ? undefined : `must be on ${publicUrl.origin} (${PUBLIC_URL_SETTING}), not ${url.origin}`;
  }
  if ((url.protocol === 'http:' || url.protocol === 'https:') && LOCAL_HOSTS.has(url.hostname)) return undefined;
  return `must be on localhost while ${PUBLIC_URL_SETTING} is unset, not ${url.origin}; set ${PUBLIC_URL_SETTING} to the URL browsers reach cairn at`;
}
