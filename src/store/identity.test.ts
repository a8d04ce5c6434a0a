/** @module Tests of the identity tables' store classes: users and memberships, tenants, the audit log. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../model/errors.js';
import { Store } from './store.js';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-identity-'));
  store = Store.open(dir, { env: {} });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('users', () => {
  it('are found by email whatever its case, and an email is taken only once', () => {
    const user = store.users.create(' Ada@Example.COM ', 'scrypt$hash');
    expect(user.email).toBe('ada@example.com');
    expect(store.users.findByEmail('ADA@example.com')).toMatchObject({ id: user.id, passwordHash: 'scrypt$hash' });
    expect(() => store.users.create('ada@EXAMPLE.com', 'x')).toThrow(/UNIQUE/);
    expect(store.users.count()).toBe(1);
  });

  it('hold one role per tenant, changed in place', () => {
    const user = store.users.create('ada@example.com', 'h');
    const acme = store.tenants.findOrCreate('acme').tenant;
    expect(store.users.setRole('default', user.id, 'viewer')).toBeUndefined();
    expect(store.users.setRole('default', user.id, 'admin')).toBe('viewer');
    store.users.setRole(acme.id, user.id, 'owner');
    expect(store.users.memberships(user.id).map((m) => [m.tenantName, m.role])).toEqual([
      ['acme', 'owner'],
      ['default', 'admin'],
    ]);
    expect(store.users.removeMembership('default', user.id)).toBe(true);
    expect(store.users.role('default', user.id)).toBeUndefined();
  });
});

describe('tenants', () => {
  it('are created once per name with a UUID id; the default one exists from the start', () => {
    expect(store.tenants.findByName('default')?.id).toBe('default');
    const first = store.tenants.findOrCreate('acme');
    const second = store.tenants.findOrCreate('acme');
    expect(first.created).toBe(true);
    expect(second).toEqual({ tenant: first.tenant, created: false });
    expect(first.tenant.id).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('audit log', () => {
  it('lists a tenant\'s entries newest first, in pages', () => {
    for (let i = 1; i <= 5; i++) store.auditLog.append({ tenant: 'default', actor: 'user:u1', action: 'database.credentials.read', target: `database:${i}` });
    store.auditLog.append({ tenant: 'other', actor: 'user:u2', action: 'database.credentials.read', target: 'database:x' });
    const first = store.auditLog.list('default', { limit: 3 });
    expect(first.items.map((e) => e.target)).toEqual(['database:5', 'database:4', 'database:3']);
    const second = store.auditLog.list('default', { limit: 3, cursor: first.nextCursor! });
    expect(second.items.map((e) => e.target)).toEqual(['database:2', 'database:1']);
    expect(second.nextCursor).toBeNull();
    expect(first.items[0]).toMatchObject({ tenant: 'default', actor: 'user:u1', action: 'database.credentials.read' });
    expect(() => store.auditLog.list('default', { limit: 3, cursor: 'bogus' })).toThrow(ValidationError);
  });
});
