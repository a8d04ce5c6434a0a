/**
 * @module A status change outside the reconcile loop is re-applied on a fresh read when another
 * writer came first (both changes kept), refused for a resource that is gone, and given up with
 * an error, writing nothing of its own, when other writers win every attempt.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyManifest, AnyStoredResource } from '../model/resource.js';
import { writeStatusChange } from './status-change.js';
import { Store } from './store.js';

const provider: AnyManifest = { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'sandbox' }, spec: { vendor: 'sandbox' } };

let dir: string;
let store: Store;
let uid: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-status-change-'));
  store = Store.open(dir);
  uid = store.resources.apply('default', 'api', [provider]).results[0]?.uid ?? '';
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Another writer's change, made between this writer's read and its write. */
function anotherWriterSets(current: AnyStoredResource, phase: string): void {
  expect(store.resources.writeStatus(current.uid, current.statusVersion, { ...current.status, phase })).toBe(true);
}

describe('writeStatusChange', () => {
  it("re-applies its change on a fresh read when another writer came first, keeping the other's", () => {
    let attempts = 0;
    const written = writeStatusChange(store.resources, uid, (current) => {
      attempts += 1;
      if (attempts === 1) anotherWriterSets(current, 'valid');
      return { ...current.status, details: { ...current.status.details, testedAt: '2026-01-01T00:00:00.000Z' } };
    });
    expect(written).toBe(true);
    expect(attempts).toBe(2);
    const after = store.resources.get(uid);
    expect(after?.status.phase).toBe('valid');
    expect(after?.status.details?.['testedAt']).toBe('2026-01-01T00:00:00.000Z');
  });

  it('writes nothing for a resource that is gone', () => {
    store.resources.remove(uid);
    expect(writeStatusChange(store.resources, uid, (current) => current.status)).toBe(false);
  });

  it('gives up, writing nothing of its own, when other writers win every attempt', () => {
    expect(() =>
      writeStatusChange(store.resources, uid, (current) => {
        anotherWriterSets(current, `other-${current.statusVersion}`);
        return { ...current.status, phase: 'mine' };
      }),
    ).toThrow(/changed under each of 8 attempts/);
    expect(store.resources.get(uid)?.status.phase).not.toBe('mine');
  });
});
