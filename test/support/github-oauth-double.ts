/**
 * @module A GitHub-shaped double on 127.0.0.1 for sign-in tests: the OAuth authorize redirect
 * (checks the client, `state` pass-through, PKCE S256), `POST /login/oauth/access_token`
 * (checks the secret, the redirect URI, the verifier; each code works once; answers errors
 * with 200 and an `error` field, as GitHub does), and the REST API under `/api/v3` (as GitHub
 * Enterprise): `GET /user`, `GET /user/emails`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHubUser {
  id: number;
  login: string;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

export interface GitHubDouble {
  base: string;
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** The account the next authorization signs in as. */
  nextUser: GitHubUser | null;
  /** Problems the double saw in cairn's requests (a test expects none). */
  violations: string[];
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

export async function startGitHubDouble(options: { redirectUri: string }): Promise<GitHubDouble> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const codes = new Map<string, { user: GitHubUser; challenge: string; redirectUri: string; used: boolean }>();
  const tokens = new Map<string, GitHubUser>();
  const double: GitHubDouble = {
    base, apiUrl: `${base}/api/v3`, clientId: 'github-client', clientSecret: `gh-secret-${randomBytes(8).toString('hex')}`, nextUser: null, violations: [],
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  server.on('request', (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', base);
      if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
        const q = url.searchParams;
        if (q.get('client_id') !== double.clientId) double.violations.push(`authorize: client_id ${q.get('client_id')}`);
        if (q.get('redirect_uri') !== options.redirectUri) double.violations.push(`authorize: redirect_uri ${q.get('redirect_uri')}`);
        if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) double.violations.push('authorize: no S256 code_challenge');
        if (!q.get('state')) double.violations.push('authorize: no state');
        if (!double.nextUser) return json(res, 500, { message: 'the test set no nextUser' });
        const code = randomBytes(10).toString('hex');
        codes.set(code, { user: double.nextUser, challenge: q.get('code_challenge') ?? '', redirectUri: q.get('redirect_uri') ?? '', used: false });
        const back = new URL(q.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.get('state') ?? '');
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
        if (!(req.headers.accept ?? '').includes('application/json')) double.violations.push('access_token: JSON not asked for');
        const form = new URLSearchParams(await bodyOf(req));
        const grant = codes.get(form.get('code') ?? '');
        if (form.get('client_id') !== double.clientId || form.get('client_secret') !== double.clientSecret) return json(res, 200, { error: 'incorrect_client_credentials' });
        if (!grant || grant.used) return json(res, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
        grant.used = true;
        if (form.get('redirect_uri') !== grant.redirectUri) return json(res, 200, { error: 'redirect_uri_mismatch' });
        const verifier = form.get('code_verifier') ?? '';
        if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) return json(res, 200, { error: 'bad_verification_code', error_description: 'PKCE verification failed' });
        const token = `gho_${randomBytes(16).toString('hex')}`;
        tokens.set(token, grant.user);
        return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
      }
      const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (req.method === 'GET' && (url.pathname === '/api/v3/user' || url.pathname === '/api/v3/user/emails')) {
        if (!user) return json(res, 401, { message: 'Bad credentials' });
        return url.pathname.endsWith('/emails') ? json(res, 200, user.emails) : json(res, 200, { id: user.id, login: user.login });
      }
      json(res, 404, { message: 'Not Found' });
    })().catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  return double;
}
