/**
 * @module Forged and stale tokens over real HTTP: `alg: none`, HS256 keyed with the public key,
 * expired, another issuer or audience, a tampered payload, and refresh tokens that were revoked
 * or used already. The forgeries that need a valid signature are signed with the server's own
 * private key, read from its data dir, so that only the check under test can refuse them.
 */
import { decodeJwt, importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { SIGNING_KEY_TENANT } from '../../src/store/signing-keys.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';

const PASSWORD = 'token tests password';
let api: ApiServer;
let pair: { access_token: string; refresh_token: string };
let claims: JWTPayload;
let kid = '';
let privateKey: CryptoKey | Uint8Array;

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

async function status(token: string): Promise<number> {
  return (await api.call('GET', '/api/v1/auth/me', { token })).status;
}

/** A token like the real one, with `changes` to its claims, signed with the server's key. */
async function signed(changes: JWTPayload): Promise<string> {
  return new SignJWT({ ...claims, ...changes }).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'at+jwt' }).sign(privateKey);
}

beforeAll(async () => {
  api = await startApiServer();
  await api.addUser('tokens@example.com', PASSWORD, 'owner');
  pair = await api.login('tokens@example.com', PASSWORD);
  claims = decodeJwt(pair.access_token);
  const header = JSON.parse(Buffer.from(pair.access_token.split('.')[0] ?? '', 'base64url').toString()) as { kid: string };
  kid = header.kid;
  const store = Store.open(api.dataDir);
  try {
    privateKey = await importJWK(JSON.parse(store.secrets.get(SIGNING_KEY_TENANT, 'signing-key', kid) ?? '{}') as JWK, 'EdDSA');
  } finally {
    store.close();
  }
}, 60_000);

afterAll(async () => {
  await api.stop();
});

describe('access tokens', () => {
  it('accepts the real one, and a copy signed with the same key', async () => {
    expect(await status(pair.access_token)).toBe(200);
    expect(await status(await signed({}))).toBe(200);
  });

  it('refuses alg none', async () => {
    const [, payload] = pair.access_token.split('.');
    expect(await status(`${b64({ alg: 'none', typ: 'at+jwt', kid })}.${payload}.`)).toBe(401);
  });

  it('refuses HS256 keyed with the public key', async () => {
    const jwks = (await api.call('GET', '/.well-known/jwks.json')).body as { keys: JWK[] };
    const publicJwk = jwks.keys.find((k) => k.kid === kid);
    expect(publicJwk).toBeDefined();
    for (const secret of [JSON.stringify(publicJwk), publicJwk?.x ?? '', Buffer.from(publicJwk?.x ?? '', 'base64url').toString('latin1')]) {
      const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid, typ: 'at+jwt' }).sign(new TextEncoder().encode(secret));
      expect(await status(forged)).toBe(401);
    }
  });

  it('refuses expired tokens, other issuers and other audiences', async () => {
    const past = Math.floor(Date.now() / 1000) - 7200;
    expect(await status(await signed({ iat: past, exp: past + 3600 }))).toBe(401);
    expect(await status(await signed({ iss: 'https://evil.example' }))).toBe(401);
    expect(await status(await signed({ aud: 'someone-else' }))).toBe(401);
  });

  it('refuses a tampered payload', async () => {
    const [header, , signature] = pair.access_token.split('.');
    const tampered = `${header}.${b64({ ...claims, role: 'owner', tid: 'another-tenant' })}.${signature}`;
    expect(await status(tampered)).toBe(401);
  });
});

describe('refresh tokens', () => {
  it('rotates on use; a used one revokes the whole sign-in', async () => {
    const first = await api.login('tokens@example.com', PASSWORD);
    const second = (await api.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: first.refresh_token } })).body;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await status(second.access_token)).toBe(200);
    const reuse = await api.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: first.refresh_token } });
    expect(reuse.status).toBe(401);
    expect(await status(second.access_token)).toBe(401);
    expect((await api.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: second.refresh_token } })).status).toBe(401);
  });

  it('stops working after logout', async () => {
    const signIn = await api.login('tokens@example.com', PASSWORD);
    expect((await api.call('POST', '/api/v1/auth/logout', { token: signIn.access_token })).status).toBe(204);
    expect((await api.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: signIn.refresh_token } })).status).toBe(401);
  });

  it('answers a wrong password and an unknown e-mail alike', async () => {
    const wrong = await api.call('POST', '/api/v1/auth/login', { body: { email: 'tokens@example.com', password: 'not the password' } });
    const unknown = await api.call('POST', '/api/v1/auth/login', { body: { email: 'nobody@example.com', password: 'not the password' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(unknown.body.detail).toBe(wrong.body.detail);
  });

  it('throttles repeated failed logins with 429 and Retry-After', async () => {
    let last = 0;
    let retryAfter: string | null = null;
    for (let i = 0; i < 12 && last !== 429; i++) {
      const answer = await api.call('POST', '/api/v1/auth/login', { body: { email: 'tokens@example.com', password: `wrong password ${i}` } });
      last = answer.status;
      retryAfter = answer.headers.get('retry-after');
    }
    expect(last).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});
