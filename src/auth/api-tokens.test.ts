/** @module Tests of API tokens: creation limits, authentication (valid, revoked, expired), listing and revoking per role and tenant. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../model/errors.js';
import { openAuthFixture, PASSWORD, type AuthFixture } from './auth-fixture.js';
import { tokenHash } from './opaque-tokens.js';
import type { Principal } from './principal.js';
import { storedBytes } from '../../test/support/store-engine.js';

let f: AuthFixture;
let owner: Principal;
let member: Principal;
let viewer: Principal;

async function signIn(email: string, tenant?: string): Promise<Principal> {
  const pair = await f.auth.login(email, PASSWORD, '10.0.0.1', tenant);
  return f.auth.authenticate(`Bearer ${pair.access_token}`);
}

beforeEach(async () => {
  f = await openAuthFixture();
  await f.addUser('owner@example.com', 'owner');
  await f.addUser('member@example.com', 'member');
  await f.addUser('viewer@example.com', 'viewer');
  [owner, member, viewer] = await Promise.all([signIn('owner@example.com'), signIn('member@example.com'), signIn('viewer@example.com')]);
});
afterEach(() => f.close());

describe('API tokens', () => {
  it('authenticate as the tenant with their role, shown once and stored only hashed', async () => {
    const { token, record } = f.auth.createApiToken(owner, { name: 'ci', role: 'member', expiresInDays: 30 });
    expect(token).toMatch(/^cairn_pat_[\w-]{43}$/);
    expect(record).toEqual({ id: record.id, name: 'ci', role: 'member', created_at: '2030-01-01T00:00:00.000Z', expires_at: '2030-01-31T00:00:00.000Z', last_used_at: null });
    const principal = await f.auth.authenticate(`Bearer ${token}`);
    expect(principal).toEqual({ tenant: 'default', role: 'member', subject: `token:${record.id}`, userId: null, email: null, tokenId: record.id, sessionId: null });
    expect(f.auth.me(principal)).toEqual({ user: null, tenant: { id: 'default', name: 'default' }, role: 'member', token: { id: record.id, name: 'ci' } });
    expect(f.auth.listApiTokens(owner, { limit: 10 }).items[0]?.last_used_at).toBe('2030-01-01T00:00:00.000Z');
    expect(JSON.stringify(f.auth.listApiTokens(owner, { limit: 10 }))).not.toContain(token.slice(10));
    const onDisk = storedBytes(f.dir);
    expect(onDisk.includes(Buffer.from(token.slice(10)))).toBe(false);
    expect(onDisk.includes(Buffer.from(tokenHash(token)))).toBe(true);
  });

  it('are refused once revoked', async () => {
    const { token, record } = f.auth.createApiToken(owner, { name: 'ci', role: 'viewer' });
    f.auth.revokeApiToken(owner, record.id);
    await expect(f.auth.authenticate(`Bearer ${token}`)).rejects.toThrow('the API token has been revoked');
    expect(() => f.auth.revokeApiToken(owner, record.id)).toThrow(NotFoundError);
    expect(f.auth.listApiTokens(owner, { limit: 10 }).items).toEqual([]);
  });

  it('are refused once expired (90 days unless asked otherwise)', async () => {
    const { token, record } = f.auth.createApiToken(owner, { name: 'ci', role: 'viewer', expiresInDays: null });
    expect(record.expires_at).toBe('2030-04-01T00:00:00.000Z');
    f.advanceSeconds(90 * 86_400 - 1);
    await expect(f.auth.authenticate(`Bearer ${token}`)).resolves.toBeDefined();
    f.advanceSeconds(1);
    await expect(f.auth.authenticate(`Bearer ${token}`)).rejects.toThrow('the API token expired at 2030-04-01T00:00:00.000Z');
  });

  it('are refused when unknown or malformed', async () => {
    await expect(f.auth.authenticate(`Bearer cairn_pat_${'A'.repeat(43)}`)).rejects.toThrow('the API token is not valid');
    await expect(f.auth.authenticate('Bearer cairn_pat_short')).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('never exceed their creator: not at creation, and not after a demotion or removal', async () => {
    expect(() => f.auth.createApiToken(member, { name: 'ci', role: 'admin' })).toThrow("a token's role cannot exceed yours: you are member, the token asks for admin");
    const { token } = f.auth.createApiToken(member, { name: 'ci', role: 'member' });
    await f.auth.addUser({ email: 'member@example.com', role: 'viewer' });
    expect((await f.auth.authenticate(`Bearer ${token}`)).role).toBe('viewer');
    f.store.users.removeMembership('default', member.userId!);
    await expect(f.auth.authenticate(`Bearer ${token}`)).rejects.toThrow('the user who created it has left the tenant');
  });

  it('cannot be managed by viewers or created by other API tokens', async () => {
    expect(() => f.auth.createApiToken(viewer, { name: 'ci', role: 'viewer' })).toThrow(ForbiddenError);
    expect(() => f.auth.listApiTokens(viewer, { limit: 10 })).toThrow(ForbiddenError);
    const { token } = f.auth.createApiToken(owner, { name: 'ci', role: 'admin' });
    const asToken = await f.auth.authenticate(`Bearer ${token}`);
    expect(() => f.auth.createApiToken(asToken, { name: 'more', role: 'viewer' })).toThrow('an API token cannot create API tokens');
  });

  it('say which fields of a request are wrong', () => {
    try {
      f.auth.createApiToken(owner, { name: ' ', role: 'root' as never, expiresInDays: 0 });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.map((i) => i.pointer)).toEqual(['/name', '/role', '/expires_in_days']);
    }
  });

  it('are listed newest first in pages: all for owners, only their own for members', () => {
    const mine = ['a', 'b', 'c'].map((name) => {
      f.advanceSeconds(1);
      return f.auth.createApiToken(member, { name, role: 'viewer' }).record.id;
    });
    f.advanceSeconds(1);
    const ownerToken = f.auth.createApiToken(owner, { name: 'owner-ci', role: 'owner' }).record.id;
    const first = f.auth.listApiTokens(member, { limit: 2 });
    expect(first.items.map((t) => t.name)).toEqual(['c', 'b']);
    const second = f.auth.listApiTokens(member, { limit: 2, cursor: first.nextCursor! });
    expect(second).toEqual({ items: [expect.objectContaining({ name: 'a' })], nextCursor: null });
    expect(f.auth.listApiTokens(owner, { limit: 10 }).items.map((t) => t.id)).toEqual([ownerToken, ...mine.reverse()]);
    expect(() => f.auth.revokeApiToken(member, ownerToken)).toThrow('you can revoke only the API tokens you created');
    f.auth.revokeApiToken(owner, mine[0]!);
    expect(f.store.auditLog.list('default', { limit: 1 }).items[0]).toMatchObject({ actor: owner.subject, action: 'api_token.revoke', target: `token:${mine[0]}` });
  });

  it('of another tenant are not found', async () => {
    await f.addUser('other@example.com', 'owner', 'acme');
    const other = await signIn('other@example.com');
    const { record } = f.auth.createApiToken(owner, { name: 'ci', role: 'viewer' });
    expect(() => f.auth.revokeApiToken(other, record.id)).toThrow(NotFoundError);
    expect(f.auth.listApiTokens(other, { limit: 10 }).items).toEqual([]);
  });
});
