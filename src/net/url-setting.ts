/**
 * @module Settings that hold an http(s) URL (CAIRN_PUBLIC_URL, the identity providers' issuers and
 * API URLs, the Stripe API base): read, trimmed and checked in one place, with one message per
 * way a value can be wrong. Each caller turns the message into its own settings error.
 */

/** The URL browsers reach cairn at: sign-in callbacks and checkout return URLs are built on it. */
export const PUBLIC_URL_SETTING = 'CAIRN_PUBLIC_URL';

/** Why a URL setting cannot be used; the message names the setting. */
export class UrlSettingError extends Error {
  override readonly name = 'UrlSettingError';
}

/** The setting `name` as an http(s) URL without credentials; `fallback` when unset or blank, else undefined. */
export function httpUrlSetting(env: NodeJS.ProcessEnv, name: string, fallback?: string): URL | undefined {
  const text = (env[name] ?? '').trim() || fallback;
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UrlSettingError(`${name}: "${text}" is not a URL (e.g. https://cairn.example.com)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UrlSettingError(`${name}: "${text}" must be an http or https URL`);
  if (url.username !== '' || url.password !== '') throw new UrlSettingError(`${name}: the URL must not carry a user name or password`);
  return url;
}
