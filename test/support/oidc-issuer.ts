/**
 * @module A real OpenID provider (oidc-provider) on 127.0.0.1 standing in for Google or GitLab:
 * one confidential client, accounts whose e-mail and `email_verified` the test sets (the
 * login name is the subject; oidc-provider's own login and consent pages), and a token
 * endpoint the test can make lie: it forwards to the provider, then rewrites the ID token
 * (another audience, another key, `alg: none`, expired) with the provider's own private key
 * where a valid signature is needed, so only the check under test can refuse it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import Provider from 'oidc-provider';

export interface IssuerAccount {
  email: string;
  email_verified: boolean;
}

export type IdTokenForgery = 'other-audience' | 'other-key' | 'alg-none' | 'expired';

export interface OidcIssuer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The accounts by login name (= subject); add before signing in. */
  accounts: Map<string, IssuerAccount>;
  /** When set, the next token responses carry an ID token forged this way. */
  forgery: IdTokenForgery | null;
  /** How many token requests reached the provider. */
  tokenRequests: number;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

export async function startOidcIssuer(options: { redirectUri: string; clientId: string; idTokenCarriesEmail: boolean }): Promise<OidcIssuer> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(privateKey)), kid: 'issuer-key', alg: 'RS256', use: 'sig' };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientSecret = `secret-of-${options.clientId}-${Math.random().toString(36).slice(2)}`;
  const accounts = new Map<string, IssuerAccount>();
  const provider = new Provider(issuer, {
    clients: [{
      client_id: options.clientId, client_secret: clientSecret, redirect_uris: [options.redirectUri],
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post',
    }],
    jwks: { keys: [signingJwk] },
    cookies: { keys: ['test-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    scopes: ['openid', 'email'],
    conformIdTokenClaims: !options.idTokenCarriesEmail,
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: () => ({ sub, ...account }) } : undefined;
    },
  });
  const handle = provider.callback();
  const state: OidcIssuer = {
    issuer, clientId: options.clientId, clientSecret, accounts, forgery: null, tokenRequests: 0,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };

  async function forge(idToken: string): Promise<string> {
    const claims = decodeJwt(idToken);
    const header = decodeProtectedHeader(idToken);
    const sign = (payload: JWTPayload, key: CryptoKey): Promise<string> => new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: header.kid ?? 'issuer-key' }).sign(key);
    switch (state.forgery) {
      case 'other-audience':
        return sign({ ...claims, aud: 'someone-else' }, privateKey);
      case 'other-key':
        return sign(claims, (await generateKeyPair('RS256')).privateKey);
      case 'alg-none':
        return `${b64({ alg: 'none' })}.${b64(claims)}.`;
      case 'expired': {
        const now = Math.floor(Date.now() / 1000);
        return sign({ ...claims, iat: now - 7200, exp: now - 3600 }, privateKey);
      }
      default:
        return idToken;
    }
  }

  server.on('request', (req, res) => {
    if (req.method === 'POST' && req.url === '/token') state.tokenRequests++;
    if (req.method !== 'POST' || req.url !== '/token' || state.forgery === null || req.headers['x-forward'] === '1') {
      void handle(req, res);
      return;
    }
    void (async () => {
      const headers: Record<string, string> = { 'x-forward': '1' };
      for (const name of ['content-type', 'authorization', 'accept']) if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
      const answer = await fetch(`${issuer}/token`, { method: 'POST', headers, body: await bodyOf(req) });
      const body = (await answer.json()) as { id_token?: string };
      if (body.id_token) body.id_token = await forge(body.id_token);
      res.writeHead(answer.status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
    })().catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  return state;
}
