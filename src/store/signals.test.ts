/**
 * @module Tests of the change feed's signals: a status write is not a reason to reconcile again;
 * a wake (something asked of the resource), an annotation change or a deletion is.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRecordsFixture, type RecordsFixture } from './records-fixture.js';

let f: RecordsFixture;
beforeEach(() => (f = openRecordsFixture()));
afterEach(() => f.close());

function signal(mark: number): ReturnType<RecordsFixture['store']['resources']['signalsSince']>[number] | undefined {
  return f.store.resources.signalsSince(mark).find((s) => s.uid === f.databaseUid);
}

describe('change-feed signals', () => {
  it('shows a status write with the same generation, annotations and wakes', () => {
    const before = signal(0);
    const mark = f.store.resources.revision();
    const db = f.store.resources.get(f.databaseUid);
    f.store.resources.writeStatus(f.databaseUid, db?.statusVersion ?? 0, { ...(db?.status ?? { phase: 'x', conditions: [], observedGeneration: 0 }), phase: 'creating' });
    const after = signal(mark);
    expect(after).toMatchObject({ generation: before?.generation, annotations: before?.annotations, wakes: before?.wakes, deleting: false });
  });

  it('counts wakes, and touch of an unknown resource or of another tenant wakes nothing', () => {
    const mark = f.store.resources.revision();
    expect(f.store.resources.touch(f.databaseUid)).toBe(true);
    expect(f.store.resources.touch(f.databaseUid, { tenant: 'default', kind: 'Database' })).toBe(true);
    expect(f.store.resources.touch(f.databaseUid, { tenant: 'someone-else' })).toBe(false);
    expect(f.store.resources.touch(f.databaseUid, { kind: 'App' })).toBe(false);
    expect(f.store.resources.touch('missing')).toBe(false);
    expect(signal(mark)?.wakes).toBe(2);
  });

  it('shows an annotation set or removed without a new generation', () => {
    const mark = f.store.resources.revision();
    expect(f.store.resources.annotate(f.databaseUid, 'cairn.dev/skip-final-backup', 'true')).toBe(true);
    expect(JSON.parse(signal(mark)?.annotations ?? '{}')).toEqual({ 'cairn.dev/skip-final-backup': 'true' });
    expect(f.store.resources.get(f.databaseUid)?.generation).toBe(1);
    f.store.resources.annotate(f.databaseUid, 'cairn.dev/skip-final-backup', null);
    expect(f.store.resources.get(f.databaseUid)?.annotations).toEqual({});
    expect(f.store.resources.annotate('missing', 'a', 'b')).toBe(false);
  });
});
