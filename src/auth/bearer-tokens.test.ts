/** @module Tests of which bearer tokens `authenticate` accepts and refuses, and of signing-key rotation. */
import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnauthorizedError } from '../model/errors.js';
import { openAuthFixture, PASSWORD, type AuthFixture } from './auth-fixture.js';
import type { TokenPair } from './auth-service.js';

let f: AuthFixture;
let pair: TokenPair;
beforeEach(async () => {
  f = await openAuthFixture();
  await f.addUser('ada@example.com', 'member');
  pair = await f.auth.login('ada@example.com', PASSWORD, '10.0.0.1');
});
afterEach(() => f.close());

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const bearer = (token: string): string => `Bearer ${token}`;

async function refusal(token: string): Promise<string> {
  try {
    await f.auth.authenticate(bearer(token));
  } catch (error) {
    expect(error).toBeInstanceOf(UnauthorizedError);
    return (error as Error).message;
  }
  throw new Error('the token was accepted');
}

describe('access tokens refused', () => {
  it('accepts the genuine token (the baseline for the cases below)', async () => {
    await expect(f.auth.authenticate(bearer(pair.access_token))).resolves.toMatchObject({ role: 'member' });
    await expect(f.auth.authenticate(`bearer   ${pair.access_token}`)).resolves.toMatchObject({ role: 'member' });
  });

  it('no header, another scheme, an empty token', async () => {
    await expect(f.auth.authenticate(undefined)).rejects.toThrow('this needs a bearer token');
    await expect(f.auth.authenticate(`Basic ${Buffer.from('a:b').toString('base64')}`)).rejects.toThrow('must be "Bearer <token>"');
    await expect(f.auth.authenticate('Bearer ')).rejects.toBeInstanceOf(UnauthorizedError);
    expect(await refusal('not-a-jwt')).toContain('not valid');
  });

  it('alg: none, with the real claims and kid', async () => {
    const header = decodeProtectedHeader(pair.access_token);
    const claims = decodeJwt(pair.access_token);
    expect(await refusal(`${b64({ ...header, alg: 'none' })}.${b64(claims)}.`)).toContain('not valid');
  });

  it('HS256 signed with the public key as the HMAC secret', async () => {
    const header = decodeProtectedHeader(pair.access_token);
    const claims = decodeJwt(pair.access_token);
    const jwk = f.auth.jwks().keys[0]!;
    for (const secret of [Buffer.from(jwk.x!, 'base64url'), Buffer.from(JSON.stringify(jwk)), Buffer.from(jwk.x!)]) {
      const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: header.kid, typ: 'at+jwt' }).sign(secret);
      expect(await refusal(forged)).toContain('"alg" (Algorithm) Header Parameter value not allowed');
    }
  });

  it('expired, whether or not it was accepted before', async () => {
    await expect(f.auth.authenticate(bearer(pair.access_token))).resolves.toBeDefined();
    const unseen = await f.auth.refresh(pair.refresh_token);
    f.advanceSeconds(3599);
    await expect(f.auth.authenticate(bearer(pair.access_token))).resolves.toBeDefined();
    f.advanceSeconds(1);
    expect(await refusal(unseen.access_token)).toBe('the access token has expired; refresh it or sign in again');
    expect(await refusal(pair.access_token)).toBe('the access token has expired; refresh it or sign in again');
  });

  it('issued for another issuer or audience, even when signed with our own key', async () => {
    const otherIssuer = await f.openAnother({ issuer: 'https://evil.example' });
    const fromOther = await otherIssuer.login('ada@example.com', PASSWORD, '10.0.0.1');
    expect(decodeProtectedHeader(fromOther.access_token).kid).toBe(decodeProtectedHeader(pair.access_token).kid);
    expect(await refusal(fromOther.access_token)).toContain('"iss"');
    const otherAudience = await f.openAnother({ audience: 'someone-else' });
    expect(await refusal((await otherAudience.login('ada@example.com', PASSWORD, '10.0.0.1')).access_token)).toContain('"aud"');
  });

  it('a payload changed after signing (role raised to owner), even once the genuine token was accepted', async () => {
    await expect(f.auth.authenticate(bearer(pair.access_token))).resolves.toBeDefined();
    const [header, , signature] = pair.access_token.split('.');
    const claims = { ...decodeJwt(pair.access_token), role: 'owner' };
    expect(await refusal(`${header}.${b64(claims)}.${signature}`)).toContain('signature verification failed');
  });

  it('signed by a key we do not know, whatever kid it names', async () => {
    const claims = decodeJwt(pair.access_token);
    const { privateKey } = generateKeyPairSync('ed25519');
    const unknownKid = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: 'not-a-key-of-ours', typ: 'at+jwt' }).sign(privateKey);
    expect(await refusal(unknownKid)).toBe('the access token was signed by an unknown or retired key; sign in again');
    const noKid = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt' }).sign(privateKey);
    expect(await refusal(noKid)).toContain('unknown or retired key');
    const ourKid = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: decodeProtectedHeader(pair.access_token).kid!, typ: 'at+jwt' }).sign(privateKey);
    expect(await refusal(ourKid)).toContain('signature verification failed');
  });

  it('of a revoked sign-in', async () => {
    f.auth.logout(await f.auth.authenticate(bearer(pair.access_token)));
    expect(await refusal(pair.access_token)).toContain('the sign-in was revoked');
  });
});

describe('signing key rotation', () => {
  it('keeps tokens signed before valid, signs new ones with the new kid, and retires the old key after they expire', async () => {
    const oldKid = decodeProtectedHeader(pair.access_token).kid!;
    const newKid = f.auth.rotateSigningKey();
    expect(newKid).not.toBe(oldKid);
    const after = await f.auth.login('ada@example.com', PASSWORD, '10.0.0.1');
    expect(decodeProtectedHeader(after.access_token).kid).toBe(newKid);
    await expect(f.auth.authenticate(bearer(pair.access_token))).resolves.toMatchObject({ role: 'member' });
    await expect(f.auth.authenticate(bearer(after.access_token))).resolves.toMatchObject({ role: 'member' });
    expect(f.auth.jwks().keys.map((k) => k.kid)).toEqual([newKid, oldKid]);
    // Nobody is logged out: the refresh token from before the rotation still works.
    const refreshed = await f.auth.refresh(pair.refresh_token);
    expect(decodeProtectedHeader(refreshed.access_token).kid).toBe(newKid);
    f.advanceSeconds(3600 + 61);
    expect(f.auth.jwks().keys.map((k) => k.kid)).toEqual([newKid]);
    expect(f.store.signingKeys.privateJwk(oldKid)).toBeUndefined();
  });

  it('is picked up by another process on the same data dir', async () => {
    const serving = await f.openAnother();
    const newKid = f.auth.rotateSigningKey();
    const signed = await serving.login('ada@example.com', PASSWORD, '10.0.0.1');
    expect(decodeProtectedHeader(signed.access_token).kid).toBe(newKid);
    await expect(serving.authenticate(bearer(signed.access_token))).resolves.toBeDefined();
    await expect(serving.authenticate(bearer(pair.access_token))).resolves.toBeDefined();
  });

  it('keeps one signing key across restarts, private half encrypted in the secrets', async () => {
    const kid = f.auth.jwks().keys[0]!.kid!;
    const again = await f.openAnother();
    expect(again.jwks().keys.map((k) => k.kid)).toEqual([kid]);
    await expect(again.authenticate(bearer(pair.access_token))).resolves.toBeDefined();
    expect(JSON.parse(f.store.signingKeys.privateJwk(kid)!)).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid });
    expect(JSON.stringify(f.auth.jwks())).not.toContain('"d"');
  });
});
