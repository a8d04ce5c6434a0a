/** @module Tests of the sign-in records: states and one-time codes work once and expire; identities link once and unlink except the last way in. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from './store.js';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-identities-'));
  store = Store.open(dir, { env: { CAIRN_MASTER_KEY: randomBytes(32).toString('base64') } });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.parse('2030-01-01T00:00:00Z');
const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString();
const pending = { provider: 'google', codeVerifier: 'verifier', nonce: 'nonce', redirectUri: null, tenantName: null, expiresAt: at(600) };

describe('sign-in states', () => {
  it('are taken once, and never after they expire', () => {
    store.identities.saveState('state-a', pending, at(0));
    store.identities.saveState('state-b', pending, at(0));
    expect(store.identities.consumeState('state-a', at(599))).toEqual(pending);
    expect(store.identities.consumeState('state-a', at(599))).toBeUndefined();
    expect(store.identities.consumeState('state-b', at(600))).toBeUndefined();
    expect(store.identities.consumeState('never-issued', at(1))).toBeUndefined();
    expect(store.identities.pendingStates()).toBe(0);
  });

  it('are refused (429) past the bound of sign-ins under way, until some expire', () => {
    store.identities.saveState('state-a', pending, at(0), 2);
    store.identities.saveState('state-b', pending, at(1), 2);
    expect(() => store.identities.saveState('state-c', pending, at(2), 2)).toThrow(/too many sign-ins are under way \(2 started/);
    expect(store.identities.pendingStates()).toBe(2);
    store.identities.saveState('state-c', { ...pending, expiresAt: at(1200) }, at(600), 2);
    expect(store.identities.pendingStates()).toBe(1);
  });

  it('keep only a hash of the state', () => {
    store.identities.saveState('the-state-itself', pending, at(0));
    const db = (store as unknown as { db: import('better-sqlite3').Database }).db;
    expect(JSON.stringify(db.prepare('SELECT * FROM sign_in_states').all())).not.toContain('the-state-itself');
  });
});

describe('one-time codes', () => {
  it('are taken once, within their lifetime', () => {
    const { id } = store.users.create('a@example.com', '');
    store.identities.saveCode('code-1', { userId: id, tenantName: null, expiresAt: at(60) }, at(0));
    store.identities.saveCode('code-2', { userId: id, tenantName: null, expiresAt: at(60) }, at(0));
    expect(store.identities.consumeCode('code-1', at(59))).toEqual({ userId: id, tenantName: null, expiresAt: at(60) });
    expect(store.identities.consumeCode('code-1', at(59))).toBeUndefined();
    expect(store.identities.consumeCode('code-2', at(60))).toBeUndefined();
  });
});

describe('identities', () => {
  it('link one provider account once, and unlink all but the last way in of a user without a password', () => {
    const user = store.users.create('nopass@example.com', '');
    const first = store.identities.link({ provider: 'github', subject: '1', userId: user.id, email: user.email, now: at(0) });
    const again = store.identities.link({ provider: 'github', subject: '1', userId: user.id, email: user.email, now: at(1) });
    expect(again.id).toBe(first.id);
    expect(store.identities.unlink(user.id, first.id)).toBe('last-way-in');
    const second = store.identities.link({ provider: 'google', subject: 'g', userId: user.id, email: user.email, now: at(2) });
    expect(store.identities.unlink(user.id, first.id)).toBe('removed');
    expect(store.identities.unlink(user.id, second.id)).toBe('last-way-in');
    expect(store.identities.unlink(user.id, first.id)).toBe('not-found');
  });
});
