/** @module Tests of ResourceSnapshot: it follows writes, removals and re-creations by reading only what changed, and reads all again only when tombstones were pruned past it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AnyManifest } from '../model/resource.js';
import { Store } from '../store/store.js';
import { ResourceSnapshot } from './resource-snapshot.js';

const server = (name: string): AnyManifest => ({ apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name }, spec: { provider: 'p', region: 'eu-1', size: 'small' } });
const ref = (name: string) => ({ kind: 'Server' as const, namespace: 'default', name });

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-snapshot-'));
  store = Store.open(dir, { tombstonesKept: 2 });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ResourceSnapshot', () => {
  it('reads the fleet once, then only what was written or removed since', () => {
    const [a, b] = store.resources.apply('default', 'test', [server('a'), server('b')]).results.map((r) => r.uid);
    const list = vi.spyOn(store.resources, 'list');
    const snapshot = new ResourceSnapshot(store, new Set(['default']));
    snapshot.refresh();
    expect(snapshot.get(a ?? '')?.status.phase).toBe('pending');

    const before = store.resources.get(a ?? '');
    if (!before) throw new Error('a is missing');
    store.resources.writeStatus(before.uid, before.statusVersion, { ...before.status, phase: 'running' });
    store.resources.remove(b ?? '');
    const [c] = store.resources.apply('default', 'test', [server('c')]).results.map((r) => r.uid);
    snapshot.refresh();

    expect(snapshot.get(a ?? '')?.status.phase).toBe('running');
    expect(snapshot.get(b ?? '')).toBeUndefined();
    expect(snapshot.find('default', ref('b'))).toBeUndefined();
    expect(snapshot.find('default', ref('c'))?.uid).toBe(c);
    expect(list).toHaveBeenCalledTimes(1);
  });

  it('keeps what following needs (identity, status, what the spec names), not the spec itself', () => {
    const database: AnyManifest = { apiVersion: 'cairn.dev/v1', kind: 'Database', metadata: { name: 'db' }, spec: { type: 'postgresql', server: 'a', version: '16', storageGb: 10 } };
    const [uid] = store.resources.apply('default', 'test', [server('a'), database]).results.filter((r) => r.kind === 'Database').map((r) => r.uid);
    const snapshot = new ResourceSnapshot(store, new Set(['default']));
    snapshot.refresh();
    const kept = snapshot.get(uid ?? '');
    expect(kept).toMatchObject({ kind: 'Database', name: 'db', generation: 1, status: { phase: 'pending' }, references: [{ target: 'Server', name: 'a' }] });
    expect(kept).not.toHaveProperty('spec');
    expect(kept).not.toHaveProperty('labels');
  });

  it('keeps a name that was removed and created again under its new uid', () => {
    const [first] = store.resources.apply('default', 'test', [server('a')]).results.map((r) => r.uid);
    const snapshot = new ResourceSnapshot(store, new Set(['default']));
    snapshot.refresh();
    store.resources.remove(first ?? '');
    const [second] = store.resources.apply('default', 'test', [server('a')]).results.map((r) => r.uid);
    snapshot.refresh();
    expect(snapshot.get(first ?? '')).toBeUndefined();
    expect(snapshot.find('default', ref('a'))?.uid).toBe(second);
  });

  it('reads everything again when the tombstones it needs were pruned', () => {
    const uids = store.resources.apply('default', 'test', ['a', 'b', 'c', 'd', 'e'].map(server)).results.map((r) => r.uid);
    const snapshot = new ResourceSnapshot(store, new Set(['default']));
    snapshot.refresh();
    const list = vi.spyOn(store.resources, 'list');
    for (const uid of uids.slice(0, 4)) store.resources.remove(uid); // 2 kept: the oldest removals are pruned
    snapshot.refresh();
    expect(list).toHaveBeenCalledTimes(1);
    expect(uids.map((uid) => snapshot.get(uid) !== undefined)).toEqual([false, false, false, false, true]);
  });
});
