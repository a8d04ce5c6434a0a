/** @module Tests of the deployment records: versions, waking the app, rollout bookkeeping, superseding. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../model/errors.js';
import { BUILD_LOG_MAX_BYTES, lastBytes } from './deployments.js';
import { openRecordsFixture, type RecordsFixture } from './records-fixture.js';

let f: RecordsFixture;
beforeEach(() => (f = openRecordsFixture()));
afterEach(() => f.close());

describe('Deployments', () => {
  it('queues API deployments with versions 1, 2, 3... per app and wakes the app', () => {
    const mark = f.store.resources.revision();
    const first = f.store.deployments.request('default', f.appUid, { ref: null });
    const second = f.store.deployments.request('default', f.appUid, { ref: 'v2.0.0' });
    expect([first.version, second.version]).toEqual([1, 2]);
    expect(second).toMatchObject({ status: 'queued', trigger: 'api', ref: 'v2.0.0', commit: null, finishedAt: null });
    expect(f.store.resources.signalsSince(mark).find((s) => s.uid === f.appUid)?.wakes).toBe(2);
    expect(f.store.deployments.latest(f.appUid)?.id).toBe(second.id);
    expect(f.store.deployments.page(f.appUid, { limit: 10 }).items.map((d) => d.version)).toEqual([2, 1]);
    expect(() => f.store.deployments.request('default', 'nope', { ref: null })).toThrow(NotFoundError);
    expect(() => f.store.deployments.request('default', f.databaseUid, { ref: null })).toThrow(NotFoundError);
  });

  it('rolls out the newest queued deployment, failing older unfinished ones as superseded', () => {
    const older = f.store.deployments.request('default', f.appUid, { ref: null });
    const newer = f.store.deployments.request('default', f.appUid, { ref: null });
    expect(f.store.deployments.nextToRollOut(f.appUid)?.id).toBe(newer.id);
    const begun = f.store.deployments.begin(newer.id);
    expect(begun.status).toBe('deploying');
    expect(begun.startedAt).not.toBeNull();
    expect(f.store.deployments.get(older.id)).toMatchObject({ status: 'failed', message: 'superseded by deployment 2' });
    // Begun but not at the vendor yet (a crash in between): still the one to roll out.
    expect(f.store.deployments.nextToRollOut(f.appUid)?.id).toBe(newer.id);
    expect(f.store.deployments.current(f.appUid)).toBeUndefined();
    f.store.deployments.markRolledOut(newer.id, { release: 7, configDigest: 'c1', releaseDigest: 'r1' });
    expect(f.store.deployments.nextToRollOut(f.appUid)).toBeUndefined();
    expect(f.store.deployments.current(f.appUid)).toMatchObject({ id: newer.id, release: 7, configDigest: 'c1', releaseDigest: 'r1' });
    f.store.deployments.finish(newer.id, { status: 'succeeded', message: null, commit: 'abc123', buildOutputTail: 'built' });
    f.store.deployments.finish(newer.id, { status: 'failed', message: 'late', commit: null, buildOutputTail: null });
    const done = f.store.deployments.get(newer.id);
    expect(done).toMatchObject({ status: 'succeeded', commit: 'abc123', buildOutputTail: 'built' });
    expect(done?.finishedAt).not.toBeNull();
  });

  it('numbers reconciler-made deployments in the same sequence, with trigger config', () => {
    f.store.deployments.request('default', f.appUid, { ref: null });
    const config = f.store.deployments.addForConfig('default', f.appUid);
    expect(config).toMatchObject({ version: 2, trigger: 'config', status: 'queued' });
  });
});

describe('deployments from push webhooks', () => {
  it('keep their trigger, pushed commit and delivery, found again by the delivery id', () => {
    const pushed = f.store.deployments.request('default', f.appUid, { ref: null, trigger: 'webhook', commit: 'abc1234', deliveryId: 'delivery-1' });
    expect(pushed).toMatchObject({ trigger: 'webhook', commit: 'abc1234', status: 'queued' });
    expect(f.store.deployments.byDelivery(f.appUid, 'delivery-1')?.id).toBe(pushed.id);
    expect(f.store.deployments.byDelivery(f.appUid, 'delivery-2')).toBeUndefined();
    expect(() => f.store.deployments.request('default', f.appUid, { ref: null, trigger: 'webhook', commit: 'abc1234', deliveryId: 'delivery-1' })).toThrow(/UNIQUE/);
  });

  it('keep the last MiB of their build log, cut at a line', () => {
    const d = f.store.deployments.request('default', f.appUid, { ref: null });
    expect(f.store.deployments.buildLog(d.id)).toBeUndefined();
    const line = `${'x'.repeat(99)}\n`;
    f.store.deployments.keepBuildLog(d.id, `first line\n${line.repeat(BUILD_LOG_MAX_BYTES / 100 + 10)}`);
    const kept = f.store.deployments.buildLog(d.id) ?? '';
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(BUILD_LOG_MAX_BYTES);
    expect(kept.startsWith('x'.repeat(99))).toBe(true);
    expect(kept).not.toContain('first line');
    expect(lastBytes('short\n', 100)).toBe('short\n');
  });
});
