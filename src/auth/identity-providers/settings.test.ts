/** @module Tests of the identity providers' settings: what turns each on, defaults, bad values named, secrets never printed. */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../model/errors.js';
import { callbackUrl, enabledProvider, identitySettingsFromEnv, IdentitySettingsError } from './settings.js';

const SECRET = 'very-secret-client-secret';

describe('identity provider settings', () => {
  it('turns a provider on with its client id and secret, with the documented default URLs', () => {
    const settings = identitySettingsFromEnv({
      CAIRN_PUBLIC_URL: 'https://cairn.example.com/base',
      CAIRN_GITHUB_CLIENT_ID: 'gh', CAIRN_GITHUB_CLIENT_SECRET: SECRET,
      CAIRN_GOOGLE_CLIENT_ID: 'go', CAIRN_GOOGLE_CLIENT_SECRET: SECRET,
      CAIRN_GITLAB_CLIENT_ID: 'gl', CAIRN_GITLAB_CLIENT_SECRET: SECRET, CAIRN_GITLAB_ISSUER: 'https://gitlab.internal.example',
    });
    expect(settings.providers.github).toMatchObject({ webUrl: new URL('https://github.com'), apiUrl: new URL('https://api.github.com') });
    expect(settings.providers.google).toMatchObject({ issuer: new URL('https://accounts.google.com') });
    expect(settings.providers.gitlab).toMatchObject({ issuer: new URL('https://gitlab.internal.example') });
    expect(settings.signup).toBe(false);
    expect(callbackUrl(settings.publicUrl!, 'gitlab')).toBe('https://cairn.example.com/base/api/v1/auth/gitlab/callback');
  });

  it('never prints a client secret: not in JSON, not in util.inspect (what pino and console use), not as a string', () => {
    const settings = identitySettingsFromEnv({ CAIRN_GOOGLE_CLIENT_ID: 'go', CAIRN_GOOGLE_CLIENT_SECRET: SECRET });
    expect(JSON.stringify(settings)).not.toContain(SECRET);
    expect(inspect(settings, { depth: 10 })).not.toContain(SECRET);
    expect(String(settings.providers.google!.clientSecret)).toBe('[redacted]');
    expect(settings.providers.google!.clientSecret.reveal()).toBe(SECRET);
  });

  it('names the setting that is set but unusable', () => {
    expect(() => identitySettingsFromEnv({ CAIRN_GITHUB_CLIENT_ID: 'gh' })).toThrow(new IdentitySettingsError('GitHub sign-in needs both CAIRN_GITHUB_CLIENT_ID and CAIRN_GITHUB_CLIENT_SECRET; CAIRN_GITHUB_CLIENT_SECRET is not set'));
    expect(() => identitySettingsFromEnv({ CAIRN_PUBLIC_URL: 'cairn.example.com' })).toThrow(/CAIRN_PUBLIC_URL: "cairn.example.com" is not a URL/);
    expect(() => identitySettingsFromEnv({ CAIRN_GOOGLE_CLIENT_ID: 'a', CAIRN_GOOGLE_CLIENT_SECRET: 'b', CAIRN_GOOGLE_ISSUER: 'ftp://x' })).toThrow(/CAIRN_GOOGLE_ISSUER: "ftp:\/\/x" must be an http or https URL/);
    expect(() => identitySettingsFromEnv({ CAIRN_SIGNUP: 'maybe' })).toThrow(/CAIRN_SIGNUP: "maybe" is neither true nor false/);
    expect(identitySettingsFromEnv({ CAIRN_SIGNUP: 'true' }).signup).toBe(true);
  });

  it('answers 404 naming what is missing for a provider that is off', () => {
    const noPublicUrl = identitySettingsFromEnv({ CAIRN_GITLAB_CLIENT_ID: 'gl', CAIRN_GITLAB_CLIENT_SECRET: SECRET });
    expect(() => enabledProvider(noPublicUrl, 'gitlab')).toThrow(new NotFoundError('sign-in through GitLab is not configured on this cairn: the operator turns it on by setting CAIRN_PUBLIC_URL'));
    expect(() => enabledProvider(noPublicUrl, 'google')).toThrow(/by setting CAIRN_GOOGLE_CLIENT_ID, CAIRN_GOOGLE_CLIENT_SECRET, CAIRN_PUBLIC_URL$/);
  });
});
