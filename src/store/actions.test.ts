/** @module Tests of the action records: waking, order, steps, follow-ups landing with the finish. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../model/errors.js';
import { openRecordsFixture, type RecordsFixture } from './records-fixture.js';

let f: RecordsFixture;
beforeEach(() => (f = openRecordsFixture()));
afterEach(() => f.close());

describe('Actions', () => {
  it('records an action as pending and wakes the resource; an unknown resource is not found', () => {
    const mark = f.store.resources.revision();
    const action = f.store.actions.request('default', f.serverUid, 'reboot', {});
    expect(action).toMatchObject({ uid: f.serverUid, type: 'reboot', params: {}, status: 'pending', message: null, finishedAt: null });
    expect(f.store.resources.signalsSince(mark).find((s) => s.uid === f.serverUid)?.wakes).toBe(1);
    expect(f.store.actions.get(action.id)?.status).toBe('pending');
    expect(() => f.store.actions.request('default', 'missing', 'reboot', {})).toThrow(NotFoundError);
    expect(() => f.store.actions.request('default', f.databaseUid, 'reboot', {})).toThrow(/no server has id/);
    expect(() => f.store.actions.request('default', f.databaseUid, 'stop', {})).toThrow(/no server or app has id/);
    expect(f.store.actions.request('default', f.appUid, 'stop', {}).status).toBe('pending');
    expect(() => f.store.actions.request('default', f.serverUid, 'restore', {})).toThrow(/no database has id/);
  });

  it('lists unfinished actions oldest first, with how far a running one got', () => {
    const reboot = f.store.actions.request('default', f.serverUid, 'reboot', {});
    const stop = f.store.actions.request('default', f.serverUid, 'stop', {});
    expect(f.store.actions.markRunning(reboot.id)).toBe(true);
    expect(f.store.actions.markRunning(reboot.id)).toBe(false);
    f.store.actions.markStep(reboot.id, 'reboot-sent');
    expect(f.store.actions.open(f.serverUid).map((a) => [a.type, a.status, a.step])).toEqual([
      ['reboot', 'running', 'reboot-sent'],
      ['stop', 'pending', null],
    ]);
    f.store.actions.finish(stop.id, 'failed', 'spec.state changed');
    expect(f.store.actions.get(stop.id)).toMatchObject({ status: 'failed', message: 'spec.state changed' });
  });

  it('keeps the first outcome of an action finished twice', () => {
    const restore = f.store.actions.request('default', f.databaseUid, 'restore', { backupId: 'b1', rotateCredentials: true });
    f.store.actions.markRunning(restore.id);
    f.store.actions.finish(restore.id, 'succeeded', 'restored');
    f.store.actions.finish(restore.id, 'failed', 'too late');
    expect(f.store.actions.get(restore.id)).toMatchObject({ status: 'succeeded', message: 'restored' });
    expect(f.store.actions.open(f.databaseUid)).toEqual([]);
    expect(f.store.actions.get(restore.id)?.params).toEqual({ backupId: 'b1', rotateCredentials: true });
  });

  it('fails every unfinished action of a resource being deleted', () => {
    f.store.actions.request('default', f.databaseUid, 'rotate_credentials', {});
    expect(f.store.actions.failOpen(f.databaseUid, 'the database was deleted')).toBe(1);
    expect(f.store.actions.open(f.databaseUid)).toEqual([]);
  });
});
