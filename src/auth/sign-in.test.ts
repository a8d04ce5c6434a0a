/** @module Tests of signing in: login, refresh rotation and reuse, logout, throttling, memberships. */
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ForbiddenError, RateLimitedError, UnauthorizedError, ValidationError } from '../model/errors.js';
import { openAuthFixture, PASSWORD, type AuthFixture } from './auth-fixture.js';

let f: AuthFixture;
beforeEach(async () => {
  f = await openAuthFixture();
});
afterEach(() => f.close());

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('login', () => {
  it('returns a bearer pair whose access token names the user, tenant, role and sign-in', async () => {
    const userId = await f.addUser('Ada@Example.com', 'admin');
    const pair = await f.auth.login('  ada@example.COM ', PASSWORD, '10.0.0.1');
    expect(pair).toMatchObject({ expires_in: 3600, token_type: 'Bearer' });
    expect(pair.refresh_token).toMatch(/^cairn_rt_[\w-]{43}$/);
    const header = decodeProtectedHeader(pair.access_token);
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt' });
    expect(header.kid).toBe(f.auth.jwks().keys[0]?.kid);
    const claims = decodeJwt(pair.access_token);
    expect(claims).toMatchObject({ iss: 'cairn', aud: 'cairn-api', sub: userId, tid: 'default', role: 'admin' });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(typeof claims.sid).toBe('string');
    expect(typeof claims.jti).toBe('string');
    const principal = await f.auth.authenticate(`Bearer ${pair.access_token}`);
    expect(principal).toEqual({
      tenant: 'default',
      role: 'admin',
      subject: `user:${userId}`,
      userId,
      email: 'ada@example.com',
      tokenId: null,
      sessionId: claims.sid,
    });
    expect(f.auth.me(principal)).toEqual({ user: { id: userId, email: 'ada@example.com' }, tenant: { id: 'default', name: 'default' }, role: 'admin', token: null });
  });

  it('answers a wrong password and an unknown email with the same 401', async () => {
    await f.addUser('ada@example.com', 'member');
    const wrongPassword = await rejection(f.auth.login('ada@example.com', 'not the password at all', '10.0.0.1'));
    const unknownEmail = await rejection(f.auth.login('nobody@example.com', PASSWORD, '10.0.0.1'));
    expect(wrongPassword).toBeInstanceOf(UnauthorizedError);
    expect(unknownEmail).toBeInstanceOf(UnauthorizedError);
    expect(wrongPassword.message).toBe(unknownEmail.message);
  });

  it('never signs in an account made through an identity provider (no password) with any password', async () => {
    f.store.users.create('nopass@example.com', '');
    const refused = await rejection(f.auth.login('nopass@example.com', '', '10.0.0.1'));
    const wrong = await rejection(f.auth.login('nopass@example.com', PASSWORD, '10.0.0.1'));
    expect(refused).toBeInstanceOf(UnauthorizedError);
    expect(wrong.message).toBe(refused.message);
  });

  it('throttles repeated failures per account, even with the right password, until the window passes', async () => {
    await f.addUser('ada@example.com', 'member');
    for (let i = 0; i < 5; i++) await expect(f.auth.login('ada@example.com', 'wrong password!!', `10.0.0.${i}`)).rejects.toBeInstanceOf(UnauthorizedError);
    f.advanceSeconds(60);
    const limited = await rejection(f.auth.login('ada@example.com', PASSWORD, '10.0.0.99'));
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect((limited as RateLimitedError).retryAfterSeconds).toBe(15 * 60 - 60);
    expect(limited.message).toBe('too many failed sign-ins; try again in 840 seconds');
    f.advanceSeconds(15 * 60 - 60);
    await expect(f.auth.login('ada@example.com', PASSWORD, '10.0.0.99')).resolves.toMatchObject({ token_type: 'Bearer' });
  });

  it('throttles an address that tries many accounts, known or not', async () => {
    for (let i = 0; i < 20; i++) await expect(f.auth.login(`user${i}@example.com`, 'some password!!', '192.0.2.7')).rejects.toBeInstanceOf(UnauthorizedError);
    await f.addUser('ada@example.com', 'member');
    await expect(f.auth.login('ada@example.com', PASSWORD, '192.0.2.7')).rejects.toBeInstanceOf(RateLimitedError);
    await expect(f.auth.login('ada@example.com', PASSWORD, '192.0.2.8')).resolves.toMatchObject({ token_type: 'Bearer' });
  });

  it('signs in to the tenant asked for, and asks which when the user has several', async () => {
    const userId = await f.addUser('ada@example.com', 'viewer');
    await f.addUser('ada@example.com', 'owner', 'acme');
    const acme = f.store.tenants.findByName('acme')!;
    const pair = await f.auth.login('ada@example.com', PASSWORD, '10.0.0.1', 'acme');
    expect(await f.auth.authenticate(`Bearer ${pair.access_token}`)).toMatchObject({ tenant: acme.id, role: 'owner', userId });
    const unspecified = await rejection(f.auth.login('ada@example.com', PASSWORD, '10.0.0.1'));
    expect(unspecified).toBeInstanceOf(ValidationError);
    expect(unspecified.message).toContain('several tenants (acme, default)');
    await expect(f.auth.login('ada@example.com', PASSWORD, '10.0.0.1', 'other')).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('applies a demotion or removal to existing access tokens at once', async () => {
    const userId = await f.addUser('ada@example.com', 'owner');
    const pair = await f.auth.login('ada@example.com', PASSWORD, '10.0.0.1');
    await f.auth.addUser({ email: 'ada@example.com', role: 'viewer' });
    expect((await f.auth.authenticate(`Bearer ${pair.access_token}`)).role).toBe('viewer');
    f.store.users.removeMembership('default', userId);
    await expect(f.auth.authenticate(`Bearer ${pair.access_token}`)).rejects.toThrow('no longer a member');
    await expect(f.auth.refresh(pair.refresh_token)).rejects.toThrow('no longer a member');
  });
});

describe('refresh', () => {
  it('rotates the refresh token on every use; the old one stops working', async () => {
    await f.addUser('ada@example.com', 'member');
    const first = await f.auth.login('ada@example.com', PASSWORD, '10.0.0.1');
    f.advanceSeconds(10);
    const second = await f.auth.refresh(first.refresh_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(decodeJwt(second.access_token).sid).toBe(decodeJwt(first.access_token).sid);
    expect(decodeJwt(second.access_token).iat).toBe(decodeJwt(first.access_token).iat! + 10);
    const third = await f.auth.refresh(second.refresh_token);
    await expect(f.auth.authenticate(`Bearer ${third.access_token}`)).resolves.toMatchObject({ role: 'member' });
  });

  it('revokes the whole sign-in when a used refresh token comes back', async () => {
    await f.addUser('ada@example.com', 'member');
    const first = await f.auth.login('ada@example.com', PASSWORD, '10.0.0.1');
    const other = await f.auth.login('ada@example.com', PASSWORD, '10.0.0.1');
    const second = await f.auth.refresh(first.refresh_token);
    await expect(f.auth.authenticate(`Bearer ${second.access_token}`)).resolves.toBeDefined();
    const reuse = await rejection(f.auth.refresh(first.refresh_token));
    expect(reuse).toBeInstanceOf(UnauthorizedError);
    expect(reuse.message).toContain('used already, so this sign-in has been revoked');
    await expect(f.auth.authenticate(`Bearer ${second.access_token}`)).rejects.toThrow('the sign-in was revoked');
    await expect(f.auth.authenticate(`Bearer ${first.access_token}`)).rejects.toThrow('the sign-in was revoked');
    await expect(f.auth.refresh(second.refresh_token)).rejects.toThrow('the sign-in was revoked');
    // Another sign-in of the same user is untouched.
    await expect(f.auth.authenticate(`Bearer ${other.access_token}`)).resolves.toBeDefined();
    await expect(f.auth.refresh(other.refresh_token)).resolves.toBeDefined();
  });

  it('refuses unknown and expired refresh tokens', async () => {
    await f.addUser('ada@example.com', 'member');
    const pair = await f.auth.login('ada@example.com', PASSWORD, '10.0.0.1');
    await expect(f.auth.refresh('cairn_rt_' + 'A'.repeat(43))).rejects.toThrow('the refresh token is not valid');
    await expect(f.auth.refresh('garbage')).rejects.toThrow('the refresh token is not valid');
    f.advanceSeconds(30 * 86_400 + 1);
    await expect(f.auth.refresh(pair.refresh_token)).rejects.toThrow('the refresh token has expired');
  });
});

describe('logout', () => {
  it('revokes the sign-in: its access token and refresh token stop working', async () => {
    await f.addUser('ada@example.com', 'member');
    const pair = await f.auth.login('ada@example.com', PASSWORD, '10.0.0.1');
    const principal = await f.auth.authenticate(`Bearer ${pair.access_token}`);
    f.auth.logout(principal);
    await expect(f.auth.authenticate(`Bearer ${pair.access_token}`)).rejects.toThrow('the sign-in was revoked');
    await expect(f.auth.refresh(pair.refresh_token)).rejects.toThrow('the sign-in was revoked');
  });

  it('can be done with the refresh token alone', async () => {
    await f.addUser('ada@example.com', 'member');
    const pair = await f.auth.login('ada@example.com', PASSWORD, '10.0.0.1');
    f.auth.logoutRefreshToken(pair.refresh_token);
    await expect(f.auth.authenticate(`Bearer ${pair.access_token}`)).rejects.toBeInstanceOf(UnauthorizedError);
  });
});
