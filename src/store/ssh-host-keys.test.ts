import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostKeyChangedError, verifyHostKey } from '../ssh/host-keys.js';
import { Store } from './store.js';

const A = 'SHA256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'SHA256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

describe('SSH host key pins in the store', () => {
  let dir: string;
  let store: Store;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-ssh-host-keys-'));
    store = Store.open(dir);
  });

  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pins on first contact, keeps the first pin, per tenant, and survives a reopen', () => {
    const pins = store.sshHostKeys.pinsFor('t1');
    verifyHostKey(pins, 'db.example:22', A);
    pins.pin('db.example:22', B);
    expect(pins.pinned('db.example:22')).toBe(A);
    expect(store.sshHostKeys.pinsFor('t2').pinned('db.example:22')).toBeUndefined();
    expect(store.sshHostKeys.get('t1', 'db.example:22')?.firstSeen).toMatch(/^\d{4}-\d\d-\d\dT/);
    store.close();
    store = Store.open(dir);
    expect(store.sshHostKeys.pinsFor('t1').pinned('db.example:22')).toBe(A);
  });

  it('refuses a changed key naming host, both fingerprints and the row to delete; removing the pin accepts the next key', () => {
    const pins = store.sshHostKeys.pinsFor('t1');
    verifyHostKey(pins, 'db.example:2222', A);
    let error: unknown;
    try {
      verifyHostKey(pins, 'db.example:2222', B);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(HostKeyChangedError);
    const message = (error as Error).message;
    expect(message).toContain('db.example:2222');
    expect(message).toContain(`pinned ${A}`);
    expect(message).toContain(`presented ${B}`);
    expect(message).toContain('table ssh_host_keys');
    expect(store.sshHostKeys.remove('t1', 'db.example:2222')).toBe(true);
    verifyHostKey(pins, 'db.example:2222', B);
    expect(pins.pinned('db.example:2222')).toBe(B);
  });
});
