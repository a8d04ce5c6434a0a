/**
 * @module The operator's settings for sign-in through GitHub, Google and GitLab, read from the
 * environment (names fixed in MANIFESTS.md): a provider is on when its client id and secret
 * are set and CAIRN_PUBLIC_URL says where browsers come back to. Client secrets are held in
 * a `ClientSecret`, which prints as `[redacted]` wherever it is logged or serialised.
 * CAIRN_SIGNUP (off by default) lets an unknown verified e-mail make an account.
 */
import { inspect } from 'node:util';
import { NotFoundError } from '../../model/errors.js';
import { httpUrlSetting, PUBLIC_URL_SETTING, UrlSettingError } from '../../net/url-setting.js';

export const PROVIDER_NAMES = ['github', 'google', 'gitlab'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export const SIGNUP_SETTING = 'CAIRN_SIGNUP';

/** A client secret: readable through `reveal()` only; `[redacted]` in logs, JSON and strings. */
export class ClientSecret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return '[redacted]';
  }
  toJSON(): string {
    return '[redacted]';
  }
  [inspect.custom](): string {
    return '[redacted]';
  }
}

export interface OidcProviderSettings {
  protocol: 'oidc';
  name: 'google' | 'gitlab';
  clientId: string;
  clientSecret: ClientSecret;
  issuer: URL;
}

export interface GitHubSettings {
  protocol: 'github';
  name: 'github';
  clientId: string;
  clientSecret: ClientSecret;
  /** Where the browser authorizes and the code is exchanged (github.com or GitHub Enterprise). */
  webUrl: URL;
  /** The REST API (`/user`, `/user/emails`). */
  apiUrl: URL;
}

export type ProviderSettings = OidcProviderSettings | GitHubSettings;

export interface IdentitySettings {
  /** The URL browsers reach cairn at; callbacks are `<public>/api/v1/auth/<provider>/callback`. */
  publicUrl: URL | null;
  /** An unknown verified e-mail makes a new account (with a tenant of its own, as its owner). */
  signup: boolean;
  providers: Partial<Record<ProviderName, ProviderSettings>>;
}

/** A setting that cannot be used; the message names it and says what it takes. */
export class IdentitySettingsError extends Error {
  override readonly name = 'IdentitySettingsError';
}

const DISPLAY: Record<ProviderName, string> = { github: 'GitHub', google: 'Google', gitlab: 'GitLab' };

export function displayName(provider: ProviderName): string {
  return DISPLAY[provider];
}

const DEFAULT_ISSUERS = { google: 'https://accounts.google.com', gitlab: 'https://gitlab.com' } as const;

function settingPrefix(provider: ProviderName): string {
  return `CAIRN_${provider.toUpperCase()}`;
}

function urlSetting(env: NodeJS.ProcessEnv, name: string, fallback: string | undefined): URL | null {
  try {
    return httpUrlSetting(env, name, fallback) ?? null;
  } catch (error) {
    if (error instanceof UrlSettingError) throw new IdentitySettingsError(error.message);
    throw error;
  }
}

function booleanSetting(env: NodeJS.ProcessEnv, name: string): boolean {
  const text = (env[name] ?? '').trim().toLowerCase();
  if (['', 'false', '0', 'off', 'no'].includes(text)) return false;
  if (['true', '1', 'on', 'yes'].includes(text)) return true;
  throw new IdentitySettingsError(`${name}: "${env[name]}" is neither true nor false`);
}

function credentials(env: NodeJS.ProcessEnv, provider: ProviderName): { clientId: string; clientSecret: ClientSecret } | null {
  const prefix = settingPrefix(provider);
  const clientId = (env[`${prefix}_CLIENT_ID`] ?? '').trim();
  const secret = (env[`${prefix}_CLIENT_SECRET`] ?? '').trim();
  if (clientId === '' && secret === '') return null;
  if (clientId === '' || secret === '') {
    const missing = clientId === '' ? `${prefix}_CLIENT_ID` : `${prefix}_CLIENT_SECRET`;
    throw new IdentitySettingsError(`${displayName(provider)} sign-in needs both ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET; ${missing} is not set`);
  }
  return { clientId, clientSecret: new ClientSecret(secret) };
}

/** Reads the settings; throws IdentitySettingsError naming a setting that is set but unusable. */
export function identitySettingsFromEnv(env: NodeJS.ProcessEnv): IdentitySettings {
  const providers: IdentitySettings['providers'] = {};
  const github = credentials(env, 'github');
  if (github) {
    providers.github = {
      protocol: 'github', name: 'github', ...github,
      webUrl: urlSetting(env, 'CAIRN_GITHUB_URL', 'https://github.com')!,
      apiUrl: urlSetting(env, 'CAIRN_GITHUB_API_URL', 'https://api.github.com')!,
    };
  }
  for (const name of ['google', 'gitlab'] as const) {
    const given = credentials(env, name);
    if (given) providers[name] = { protocol: 'oidc', name, ...given, issuer: urlSetting(env, `${settingPrefix(name)}_ISSUER`, DEFAULT_ISSUERS[name])! };
  }
  return { publicUrl: urlSetting(env, PUBLIC_URL_SETTING, undefined), signup: booleanSetting(env, SIGNUP_SETTING), providers };
}

/** Where the provider sends the browser back to. */
export function callbackUrl(publicUrl: URL, provider: ProviderName): string {
  return new URL(`api/v1/auth/${provider}/callback`, publicUrl.href.endsWith('/') ? publicUrl : new URL(`${publicUrl.href}/`)).href;
}

/** The settings of a provider that is on, or a 404 naming the settings that turn it on. */
export function enabledProvider(settings: IdentitySettings, provider: ProviderName): { provider: ProviderSettings; publicUrl: URL } {
  const found = settings.providers[provider];
  if (found && settings.publicUrl) return { provider: found, publicUrl: settings.publicUrl };
  const prefix = settingPrefix(provider);
  const needed = [...(found ? [] : [`${prefix}_CLIENT_ID`, `${prefix}_CLIENT_SECRET`]), ...(settings.publicUrl ? [] : [PUBLIC_URL_SETTING])];
  throw new NotFoundError(`sign-in through ${displayName(provider)} is not configured on this cairn: the operator turns it on by setting ${needed.join(', ')}`);
}
