/**
 * @module Sign-in through Google, GitLab (two real OpenID providers, oidc-provider on loopback:
 * Google's puts the e-mail in the ID token, GitLab's only in userinfo) and GitHub (an
 * OAuth-shaped double), through the whole API app over HTTP: each ends in cairn's own tokens
 * that `GET /auth/me` takes. Then the attacks — wrong, reused and expired state, a reused code,
 * forged ID tokens (another audience, another key, `alg: none`, expired), an unverified
 * e-mail taking over an account, an open redirect — each refused, creating nothing.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- answers are JSON checked by assertions and by the OpenAPI document */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../src/api/app.js';
import { createMetricsRegistry } from '../src/api/metrics.js';
import { AuthService } from '../src/auth/auth-service.js';
import { identitySignInFromEnv } from '../src/auth/identity-providers/identity-sign-in.js';
import { createLogger } from '../src/logging/logger.js';
import { driverPoolFor, type DriverPool } from '../src/reconcile/driver-pool.js';
import { Store } from '../src/store/store.js';
import { collect, runCairn, spawnCairn } from './support/cairn-process.js';
import { startGitHubDouble, type GitHubDouble } from './support/github-oauth-double.js';
import { startOidcIssuer, type IdTokenForgery, type OidcIssuer } from './support/oidc-issuer.js';
import { validateResponse } from './support/openapi-document.js';
import { SignInBrowser } from './support/sign-in-browser.js';

const PASSWORD = 'correct horse battery staple';
let dir: string;
let store: Store;
let auth: AuthService;
let drivers: DriverPool;
let server: Server;
let base = '';
let app: Express;
let google: OidcIssuer;
let gitlab: OidcIssuer;
let github: GitHubDouble;
const contractProblems: string[] = [];

function settings(more: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    CAIRN_PUBLIC_URL: base,
    CAIRN_GOOGLE_CLIENT_ID: google.clientId, CAIRN_GOOGLE_CLIENT_SECRET: google.clientSecret, CAIRN_GOOGLE_ISSUER: google.issuer,
    CAIRN_GITLAB_CLIENT_ID: gitlab.clientId, CAIRN_GITLAB_CLIENT_SECRET: gitlab.clientSecret, CAIRN_GITLAB_ISSUER: gitlab.issuer,
    CAIRN_GITHUB_CLIENT_ID: github.clientId, CAIRN_GITHUB_CLIENT_SECRET: github.clientSecret, CAIRN_GITHUB_URL: github.base, CAIRN_GITHUB_API_URL: github.apiUrl,
    ...more,
  };
}

/** The API app for these settings (the server in front of it stays). */
function serve(env: NodeJS.ProcessEnv): void {
  app = createApiApp({
    store, auth, drivers, logger: createLogger({ level: 'silent' }), metrics: createMetricsRegistry(),
    readiness: { storeWritable: () => true, reconciling: () => true }, afterWrite: () => undefined,
    identitySignIn: identitySignInFromEnv(store, auth, env),
  });
}

async function call(method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: any; location: string | null }> {
  const headers: Record<string, string> = {};
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(new URL(path, base), { method, headers, redirect: 'manual', ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  const body: unknown = contentType.includes('json') && text !== '' ? JSON.parse(text) : text;
  const url = new URL(path, base);
  for (const problem of validateResponse({ method, path: url.pathname, status: response.status, contentType, body })) contractProblems.push(problem);
  return { status: response.status, body, location: response.headers.get('location') };
}

type ProviderName = 'github' | 'google' | 'gitlab';

/** Starts a sign-in at cairn and drives the provider's pages as `login`; returns cairn's callback URL (not yet visited). */
async function throughProvider(provider: ProviderName, login: string, query = ''): Promise<URL> {
  const begun = await call('GET', `/api/v1/auth/${provider}${query}`);
  expect(begun.status, JSON.stringify(begun.body)).toBe(302);
  return new SignInBrowser().runUntil(begun.location!, `${base}/api/v1/auth/${provider}/callback`, login);
}

async function signIn(provider: ProviderName, login: string, query = ''): Promise<{ status: number; body: any; location: string | null }> {
  const callback = await throughProvider(provider, login, query);
  return call('GET', `${callback.pathname}${callback.search}`);
}

function githubUser(id: number, email: string, verified: boolean): void {
  github.nextUser = { id, login: `user${id}`, emails: [{ email: `noreply${id}@users.example`, primary: false, verified: true }, { email, primary: true, verified }] };
}

/** What sign-in may create: users, identities, sign-ins (sessions). */
function counts(): { users: number; identities: number; sessions: number } {
  const db = (store as unknown as { db: import('better-sqlite3').Database }).db;
  return {
    users: store.users.count(),
    identities: store.identities.count(),
    sessions: (db.prepare('SELECT count(*) AS n FROM auth_sessions').get() as { n: number }).n,
  };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    app(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  [google, gitlab, github] = await Promise.all([
    startOidcIssuer({ redirectUri: `${base}/api/v1/auth/google/callback`, clientId: 'cairn-at-google', idTokenCarriesEmail: true }),
    startOidcIssuer({ redirectUri: `${base}/api/v1/auth/gitlab/callback`, clientId: 'cairn-at-gitlab', idTokenCarriesEmail: false }),
    startGitHubDouble({ redirectUri: `${base}/api/v1/auth/github/callback` }),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'cairn-sign-in-'));
  store = Store.open(dir, { env: { CAIRN_MASTER_KEY: randomBytes(32).toString('base64') } });
  auth = await AuthService.open(store, {});
  drivers = driverPoolFor(store, dir, 1_000);
  serve(settings());
  for (const email of ['ada@example.com', 'bob@example.com', 'cy@example.com', 'dee@example.com']) await auth.addUser({ email, password: PASSWORD, role: 'member' });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.all([google.close(), gitlab.close(), github.close()]);
  await drivers.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('signing in through each provider', () => {
  it.each([
    ['google', 'ada@example.com'],
    ['gitlab', 'bob@example.com'],
    ['github', 'cy@example.com'],
  ] as const)('%s: links the verified e-mail to the existing user, answers login tokens that /auth/me takes, and signs in again by the same identity', async (provider, email) => {
    const user = store.users.findByEmail(email)!;
    if (provider === 'github') githubUser(1001, email, true);
    else (provider === 'google' ? google : gitlab).accounts.set(`sub-${email}`, { email, email_verified: true });

    const first = await signIn(provider, `sub-${email}`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ expires_in: 3600, token_type: 'Bearer' });
    expect(first.body.refresh_token).toMatch(/^cairn_rt_/);
    const me = await call('GET', '/api/v1/auth/me', { token: first.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.user).toEqual({ id: user.id, email });
    const identities = await call('GET', '/api/v1/auth/identities', { token: first.body.access_token });
    expect(identities.body.items).toEqual([expect.objectContaining({ provider, subject: provider === 'github' ? '1001' : `sub-${email}`, email })]);

    const before = counts();
    const again = await signIn(provider, `sub-${email}`);
    expect(again.status).toBe(200);
    expect((await call('GET', '/api/v1/auth/me', { token: again.body.access_token })).body.user.id).toBe(user.id);
    expect(counts()).toEqual({ ...before, sessions: before.sessions + 1 });
    // The refresh token works as login's does.
    expect((await call('POST', '/api/v1/auth/refresh', { body: { refresh_token: again.body.refresh_token } })).status).toBe(200);
  });

  it('lists the configured providers to anyone, for the sign-in page\'s buttons', async () => {
    const answer = await call('GET', '/api/v1/auth/providers', {});
    expect(answer.status).toBe(200);
    expect((answer.body.items as Array<{ name: string }>).map((p) => p.name).sort()).toEqual(['github', 'gitlab', 'google']);
    expect(answer.body.items).toContainEqual({ name: 'github', display_name: 'GitHub', path: '/auth/github' });
  });

  it('redirects to a redirect_uri with a one-time code that POST /auth/exchange turns into tokens, once', async () => {
    google.accounts.set('sub-ada@example.com', { email: 'ada@example.com', email_verified: true });
    const answer = await signIn('google', 'sub-ada@example.com', `?redirect_uri=${encodeURIComponent('/dashboard?tab=servers')}`);
    expect(answer.status).toBe(302);
    const target = new URL(answer.location!, base);
    expect(target.pathname).toBe('/dashboard');
    expect(target.searchParams.get('tab')).toBe('servers');
    const code = target.searchParams.get('code')!;
    expect(code).toMatch(/^cairn_sc_/);
    const tokens = await call('POST', '/api/v1/auth/exchange', { body: { code } });
    expect(tokens.status).toBe(200);
    expect((await call('GET', '/api/v1/auth/me', { token: tokens.body.access_token })).body.user.email).toBe('ada@example.com');
    const reused = await call('POST', '/api/v1/auth/exchange', { body: { code } });
    expect(reused.status).toBe(401);
    expect(reused.body.detail).toMatch(/used already/);
    // An absolute URL at CAIRN_PUBLIC_URL's origin is allowed too.
    const absolute = await signIn('google', 'sub-ada@example.com', `?redirect_uri=${encodeURIComponent(`${base}/after`)}`);
    expect(absolute.location).toMatch(new RegExp(`^${base}/after\\?code=cairn_sc_`));
  });
});

describe('attacks, each refused and creating nothing', () => {
  it('refuses a redirect_uri outside the allow-list (no open redirect) before anything is stored', async () => {
    const before = store.identities.pendingStates();
    for (const target of ['https://evil.example/steal', '//evil.example/steal', 'http://127.0.0.1:1/steal', 'javascript:alert(1)', '/\\evil.example', 'evil.example']) {
      const answer = await call('GET', `/api/v1/auth/google?redirect_uri=${encodeURIComponent(target)}`);
      expect(answer.status, target).toBe(422);
      expect(answer.body.errors[0].pointer, target).toBe('/redirect_uri');
    }
    expect(store.identities.pendingStates()).toBe(before);
  });

  it('refuses a wrong state without calling the provider', async () => {
    google.accounts.set('sub-dee@example.com', { email: 'dee@example.com', email_verified: true });
    const callback = await throughProvider('google', 'sub-dee@example.com');
    const before = { ...counts(), tokens: google.tokenRequests };
    callback.searchParams.set('state', 'not-the-state');
    const answer = await call('GET', `${callback.pathname}${callback.search}`);
    expect(answer.status).toBe(401);
    expect(answer.body.detail).toMatch(/state is unknown, used already or expired/);
    expect({ ...counts(), tokens: google.tokenRequests }).toEqual(before);
  });

  it('refuses a replayed callback (reused state)', async () => {
    google.accounts.set('sub-dee@example.com', { email: 'dee@example.com', email_verified: true });
    const callback = await throughProvider('google', 'sub-dee@example.com');
    expect((await call('GET', `${callback.pathname}${callback.search}`)).status).toBe(200);
    const before = counts();
    const replay = await call('GET', `${callback.pathname}${callback.search}`);
    expect(replay.status).toBe(401);
    expect(counts()).toEqual(before);
  });

  it.each(['google', 'github'] as const)('%s: refuses a used code under a fresh state', async (provider) => {
    if (provider === 'github') githubUser(1001, 'cy@example.com', true);
    const used = await throughProvider(provider, 'sub-dee@example.com');
    expect((await call('GET', `${used.pathname}${used.search}`)).status).toBe(200);
    const fresh = await throughProvider(provider, 'sub-dee@example.com');
    const before = counts();
    fresh.searchParams.set('code', used.searchParams.get('code')!);
    const answer = await call('GET', `${fresh.pathname}${fresh.search}`);
    expect(answer.status).toBe(401);
    expect(counts()).toEqual(before);
  });

  it.each(['other-audience', 'other-key', 'alg-none', 'expired'] as IdTokenForgery[])('refuses an ID token forged so: %s', async (forgery) => {
    const login = `sub-forged-${forgery}`;
    // An account that would otherwise link to dee@example.com, or be made with sign-up on.
    google.accounts.set(login, { email: 'dee@example.com', email_verified: true });
    serve(settings({ CAIRN_SIGNUP: 'true' }));
    const before = counts();
    google.forgery = forgery;
    try {
      const answer = await signIn('google', login);
      expect(answer.status, JSON.stringify(answer.body)).toBe(401);
      expect(answer.body.detail).toMatch(/sign-in through Google was refused/);
    } finally {
      google.forgery = null;
      serve(settings());
    }
    expect(counts()).toEqual(before);
    expect(store.identities.find('google', login)).toBeUndefined();
  });

  it.each(['gitlab', 'github'] as const)('%s: an unverified e-mail cannot take over an existing account', async (provider) => {
    if (provider === 'github') githubUser(666, 'ada@example.com', false);
    else gitlab.accounts.set('sub-eve', { email: 'ada@example.com', email_verified: false });
    const before = counts();
    const answer = await signIn(provider, 'sub-eve');
    expect(answer.status).toBe(403);
    expect(answer.body.detail).toMatch(/has not verified the e-mail ada@example.com/);
    expect(counts()).toEqual(before);
  });
});

describe('accounts', () => {
  it('refuses an unknown e-mail while sign-up is off (403 naming CAIRN_SIGNUP), and with it on makes an owner of a new tenant, without a password', async () => {
    gitlab.accounts.set('sub-newcomer', { email: 'newcomer@example.com', email_verified: true });
    const before = counts();
    const refused = await signIn('gitlab', 'sub-newcomer');
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/no cairn account has the e-mail newcomer@example.com, and sign-up is off on this cairn \(CAIRN_SIGNUP\)/);
    expect(counts()).toEqual(before);

    serve(settings({ CAIRN_SIGNUP: 'true' }));
    try {
      const made = await signIn('gitlab', 'sub-newcomer');
      expect(made.status).toBe(200);
      const me = await call('GET', '/api/v1/auth/me', { token: made.body.access_token });
      expect(me.body).toMatchObject({ user: { email: 'newcomer@example.com' }, role: 'owner', tenant: { name: expect.stringMatching(/^newcomer-[0-9a-f]{6}$/) } });
      // No password: e-mail and password never sign this account in.
      expect((await call('POST', '/api/v1/auth/login', { body: { email: 'newcomer@example.com', password: PASSWORD } })).status).toBe(401);
      // Its only identity is its last way in.
      const [identity] = (await call('GET', '/api/v1/auth/identities', { token: made.body.access_token })).body.items;
      const unlink = await call('DELETE', `/api/v1/auth/identities/${identity.id}`, { token: made.body.access_token });
      expect(unlink.status).toBe(409);
      expect(unlink.body.detail).toMatch(/last way to sign in/);
      expect(store.identities.find('gitlab', 'sub-newcomer')).toBeDefined();
    } finally {
      serve(settings());
    }
  });

  it('unlinks an identity of a user who has a password; another user\'s identity is a 404', async () => {
    google.accounts.set('sub-ada@example.com', { email: 'ada@example.com', email_verified: true });
    const ada = await signIn('google', 'sub-ada@example.com');
    const bob = await auth.login('bob@example.com', PASSWORD, '127.0.0.1');
    const [identity] = (await call('GET', '/api/v1/auth/identities', { token: ada.body.access_token })).body.items;
    expect((await call('DELETE', `/api/v1/auth/identities/${identity.id}`, { token: bob.access_token })).status).toBe(404);
    expect((await call('DELETE', `/api/v1/auth/identities/${identity.id}`, { token: ada.body.access_token })).status).toBe(204);
    expect(store.identities.find('google', 'sub-ada@example.com')).toBeUndefined();
  });

  it('answers 404 naming the settings for a provider that is not configured', async () => {
    serve({ CAIRN_PUBLIC_URL: base });
    try {
      for (const [provider, setting] of [['gitlab', 'CAIRN_GITLAB_CLIENT_ID, CAIRN_GITLAB_CLIENT_SECRET'], ['github', 'CAIRN_GITHUB_CLIENT_ID, CAIRN_GITHUB_CLIENT_SECRET'], ['google', 'CAIRN_GOOGLE_CLIENT_ID, CAIRN_GOOGLE_CLIENT_SECRET']]) {
        const answer = await call('GET', `/api/v1/auth/${provider}`);
        expect(answer.status).toBe(404);
        expect(answer.body.code).toBe('not_found');
        expect(answer.body.detail).toContain(setting);
      }
    } finally {
      serve(settings());
    }
    serve({ CAIRN_GITHUB_CLIENT_ID: 'x', CAIRN_GITHUB_CLIENT_SECRET: 'y' });
    try {
      expect((await call('GET', '/api/v1/auth/github/callback?code=a&state=b')).body.detail).toMatch(/by setting CAIRN_PUBLIC_URL$/);
    } finally {
      serve(settings());
    }
  });

  it('stops cairn serve at start with the name of a sign-in setting that cannot be used, and no stack', async () => {
    const result = await runCairn(['serve', '--port', '0', '--data-dir', join(dir, 'serve-state')], {
      env: { CAIRN_GITLAB_CLIENT_ID: 'gl', CAIRN_GITLAB_CLIENT_SECRET: 'a-secret-never-printed', CAIRN_GITLAB_ISSUER: 'gitlab.example.com' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: CAIRN_GITLAB_ISSUER: "gitlab.example.com" is not a URL');
    expect(result.stderr).not.toContain('    at ');
    expect(result.stdout + result.stderr).not.toContain('a-secret-never-printed');
  });

  it.each(['github', 'gitlab'] as const)('cairn login --%s: prints the URL, takes the redirect on its loopback port, trades the code and stores tokens 0600 that the API takes', async (provider) => {
    if (provider === 'github') githubUser(1001, 'cy@example.com', true);
    else gitlab.accounts.set('sub-bob@example.com', { email: 'bob@example.com', email_verified: true });
    const config = mkdtempSync(join(tmpdir(), 'cairn-login-'));
    try {
      const child = spawnCairn(['login', '--server', base, `--${provider}`, '--timeout', '30'], { env: { XDG_CONFIG_HOME: config } });
      const done = collect(child);
      const url = await new Promise<string>((resolve, reject) => {
        let seen = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          const found = /(http:\/\/127\.0\.0\.1:\d+\/api\/v1\/auth\/\w+\?redirect_uri=\S+)/.exec(seen);
          if (found) resolve(found[1]!);
        });
        child.once('exit', () => reject(new Error(`cairn login exited before printing the URL: ${seen}`)));
      });
      const callback = await new SignInBrowser().runUntil(url, `${base}/api/v1/auth/${provider}/callback`, 'sub-bob@example.com');
      const back = await call('GET', `${callback.pathname}${callback.search}`);
      expect(back.status).toBe(302);
      expect(back.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cairn-login\?code=cairn_sc_/);
      expect((await fetch(back.location!)).status).toBe(200);
      const result = await done;
      expect(result.code, result.stderr).toBe(0);
      const file = join(config, 'cairn', 'credentials.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const stored = (JSON.parse(readFileSync(file, 'utf8')) as { servers: Record<string, { access_token: string; refresh_token: string; expires_at: string }> }).servers[base]!;
      expect(Date.parse(stored.expires_at)).toBeGreaterThan(Date.now());
      const me = await call('GET', '/api/v1/auth/me', { token: stored.access_token });
      expect(me.body.user.email).toBe(provider === 'github' ? 'cy@example.com' : 'bob@example.com');
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  });

  it('cairn login --email stores the tokens of e-mail and password, which cairn plan --server uses and refreshes when they expire', async () => {
    const config = mkdtempSync(join(tmpdir(), 'cairn-login-'));
    try {
      const result = await runCairn(['login', '--server', base, '--email', 'dee@example.com'], { env: { XDG_CONFIG_HOME: config }, input: `${PASSWORD}\n` });
      expect(result.code, result.stderr).toBe(0);
      const stored = (JSON.parse(readFileSync(join(config, 'cairn', 'credentials.json'), 'utf8')) as { servers: Record<string, { access_token: string }> }).servers[base]!;
      expect((await call('GET', '/api/v1/auth/me', { token: stored.access_token })).body.user.email).toBe('dee@example.com');
      // Later commands use the stored sign-in, and refresh it once it is about to expire.
      const manifest = join(config, 'provider.yaml');
      writeFileSync(manifest, 'apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: stored-token-sandbox\nspec:\n  vendor: sandbox\n');
      const plan = await runCairn(['plan', '--server', base, '-f', manifest], { env: { XDG_CONFIG_HOME: config, CAIRN_TOKEN: '' } });
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).toContain('stored-token-sandbox');
      const file = join(config, 'cairn', 'credentials.json');
      const document = JSON.parse(readFileSync(file, 'utf8')) as { servers: Record<string, { access_token: string; refresh_token: string; expires_at: string }> };
      const before = document.servers[base]!;
      document.servers[base] = { ...before, expires_at: new Date(Date.now() - 1000).toISOString() };
      writeFileSync(file, JSON.stringify(document));
      const refreshed = await runCairn(['plan', '--server', base, '-f', manifest], { env: { XDG_CONFIG_HOME: config, CAIRN_TOKEN: '' } });
      expect(refreshed.code, refreshed.stderr).toBe(0);
      const after = (JSON.parse(readFileSync(file, 'utf8')) as typeof document).servers[base]!;
      expect(after.refresh_token).not.toBe(before.refresh_token);
      expect(Date.parse(after.expires_at)).toBeGreaterThan(Date.now());
      expect((await call('GET', '/api/v1/auth/me', { token: after.access_token })).status).toBe(200);
      const none = await runCairn(['plan', '--server', base, '-f', manifest], { env: { XDG_CONFIG_HOME: join(config, 'elsewhere'), CAIRN_TOKEN: '' } });
      expect(none.code).toBe(1);
      expect(none.stderr).toContain(`cairn login --server ${base}`);

      const wrong = await runCairn(['login', '--server', base, '--email', 'dee@example.com'], { env: { XDG_CONFIG_HOME: config }, input: 'not the password\n' });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('sign-in refused (HTTP 401)');
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  });

  it('keeps every answer within the OpenAPI document, and the GitHub double saw nothing amiss', () => {
    expect(contractProblems).toEqual([]);
    expect(github.violations).toEqual([]);
  });
});
