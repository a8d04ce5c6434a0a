/**
 * @module The event log stays bounded: repeats are counted on the event they repeat (within ten
 * minutes), each resource keeps its newest events up to the cap, old events are pruned by age.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, eventBoundsFromEnv, type NewEvent } from './events.js';
import type Database from 'better-sqlite3';
import { migrate } from './migrate.js';
import { openSqlite } from './sqlite.js';

let dir: string;
let db: Database.Database;
let clock = Date.parse('2026-11-26T00:00:00Z');
let log: EventLog;

const event = (uid: string, message: string, reason = 'Provisioning'): NewEvent => ({
  tenant: 'default', uid, kind: 'Server', namespace: 'default', name: uid, type: 'Normal', reason, message,
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-events-'));
  db = openSqlite(dir);
  migrate(db);
  clock = Date.parse('2026-11-26T00:00:00Z');
  log = new EventLog(db, { perResource: 3, ttlMs: 24 * 3_600_000 }, () => new Date(clock));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the event log', () => {
  it('counts a repeat of the newest event instead of adding it, and adds it again after ten minutes or another event', () => {
    log.append(event('a', 'waiting for the vendor'));
    clock += 60_000;
    log.append(event('a', 'waiting for the vendor'));
    log.append(event('a', 'waiting for the vendor'));
    let [newest] = log.list({ tenant: 'default', uid: 'a' });
    expect(newest).toMatchObject({ count: 3, createdAt: '2026-11-26T00:00:00.000Z', lastSeenAt: '2026-11-26T00:01:00.000Z' });
    log.append(event('a', 'running', 'Ready'));
    log.append(event('a', 'waiting for the vendor'));
    expect(log.list({ tenant: 'default', uid: 'a' }).map((e) => [e.message, e.count])).toEqual([['waiting for the vendor', 1], ['running', 1], ['waiting for the vendor', 3]]);
    clock += 11 * 60_000;
    log.append(event('a', 'waiting for the vendor'));
    [newest] = log.list({ tenant: 'default', uid: 'a' });
    expect(newest?.count).toBe(1);
  });

  it("keeps each resource's newest events up to the cap, whatever the others do", () => {
    for (let i = 0; i < 5; i++) log.append(event('a', `step ${i}`));
    log.append(event('b', 'only one'));
    expect(log.list({ tenant: 'default', uid: 'a' }).map((e) => e.message)).toEqual(['step 4', 'step 3', 'step 2']);
    expect(log.list({ tenant: 'default', uid: 'b' }).map((e) => e.message)).toEqual(['only one']);
  });

  it('prunes events not seen within the time to live', () => {
    log.append(event('a', 'old'));
    clock += 25 * 3_600_000;
    log.append(event('b', 'new'));
    expect(log.pruneOlderThan(new Date(clock - 24 * 3_600_000))).toBe(1);
    expect(log.list({ tenant: 'default' }).map((e) => e.message)).toEqual(['new']);
  });

  it('reads its bounds from the environment and refuses nonsense', () => {
    expect(eventBoundsFromEnv({})).toEqual({ perResource: 100, ttlMs: 168 * 3_600_000 });
    expect(eventBoundsFromEnv({ CAIRN_EVENTS_PER_RESOURCE: '20', CAIRN_EVENT_TTL_HOURS: '1' })).toEqual({ perResource: 20, ttlMs: 3_600_000 });
    expect(() => eventBoundsFromEnv({ CAIRN_EVENTS_PER_RESOURCE: 'lots' })).toThrow(/CAIRN_EVENTS_PER_RESOURCE must be a number >= 1, got "lots"/);
  });
});
