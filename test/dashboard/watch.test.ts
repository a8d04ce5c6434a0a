/**
 * @module `GET /watch` over real HTTP: the initial replay, live ADDED/MODIFIED/DELETED with the
 * REST record, resuming with `Last-Event-ID` without missing a change, heartbeats, a second
 * tenant seeing nothing of the first, bad input refused, and the stream ending cleanly when the
 * client goes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeWatchStreams } from '../../src/api/watch-stream.js';
import { openEventStream, watchData, type StreamEvent } from './event-stream-client.js';
import { startInProcessApi, type InProcessApi } from './in-process-api.js';

let api: InProcessApi;
let acme: { token: string; tenant: string };
let globex: { token: string; tenant: string };

beforeAll(async () => {
  api = await startInProcessApi({ pollMs: 50, heartbeatMs: 300 });
  acme = await api.signIn('owner@acme.test', 'owner', 'acme');
  globex = await api.signIn('owner@globex.test', 'owner', 'globex');
});

afterAll(async () => {
  await api.stop();
});

async function createProvider(token: string, name: string): Promise<string> {
  const created = await api.call('POST', '/api/v1/providers', token, { name, vendor: 'sandbox', credentials: { token: 'sandbox-token' } });
  expect(created.status).toBe(201);
  return (created.body as { id: string }).id;
}

function setPhase(uid: string, phase: string): void {
  const current = api.store.resources.get(uid);
  if (!current) throw new Error(`no resource ${uid}`);
  expect(api.store.resources.writeStatus(uid, current.statusVersion, { ...current.status, phase })).toBe(true);
}

const isChange = (type: string, name: string) => (e: StreamEvent): boolean => e.data !== undefined && watchData(e).type === type && watchData(e).object.name === name;

describe('GET /watch', () => {
  it('replays what exists, then streams each change as its REST record, and none of another tenant', async () => {
    const first = await createProvider(acme.token, 'first');
    const stream = await openEventStream(`${api.base}/api/v1/watch?kinds=providers`, acme.token);
    const other = await openEventStream(`${api.base}/api/v1/watch`, globex.token);
    try {
      expect(stream.status).toBe(200);
      expect(stream.contentType).toContain('text/event-stream');
      const replayed = watchData(await stream.next(isChange('ADDED', 'first')));
      expect(replayed).toMatchObject({ kind: 'providers', object: { id: first, name: 'first', vendor: 'sandbox' } });

      const second = await createProvider(acme.token, 'second');
      expect(watchData(await stream.next(isChange('ADDED', 'second'))).object.id).toBe(second);
      setPhase(second, 'Ready');
      const modified = await stream.next(isChange('MODIFIED', 'second'));
      expect(watchData(modified).object.status).toBe('Ready');
      expect(modified.id).toMatch(/^\d+$/);
      api.store.resources.remove(second);
      expect(watchData(await stream.next(isChange('DELETED', 'second'))).object.id).toBe(second);

      // The other tenant's stream has had heartbeats, and nothing of acme's.
      await other.next((e) => e.comment === 'heartbeat', 2_000);
      expect(other.received.filter((e) => e.data !== undefined)).toEqual([]);
    } finally {
      stream.close();
      other.close();
    }
  });

  it('resumes after Last-Event-ID with the changes made while away, without replaying', async () => {
    const uid = await createProvider(acme.token, 'resumed');
    const stream = await openEventStream(`${api.base}/api/v1/watch?kinds=providers`, acme.token);
    const added = await stream.next((e) => e.id !== undefined && e.data !== undefined && watchData(e).object.name === 'resumed');
    stream.close();
    setPhase(uid, 'Provisioning');
    setPhase(uid, 'Ready');
    const gone = await createProvider(acme.token, 'gone');
    api.store.resources.remove(gone);

    const resumed = await openEventStream(`${api.base}/api/v1/watch?kinds=providers`, acme.token, { 'Last-Event-ID': added.id ?? '' });
    try {
      await resumed.next(isChange('DELETED', 'gone'));
      const data = resumed.received.filter((e) => e.data !== undefined).map((e) => watchData(e));
      // Both status changes coalesce into the latest state, a provider made and removed while
      // away is only its removal, and nothing that existed before is replayed.
      expect(data.map((d) => [d.type, d.object.name, d.object.status])).toEqual([['MODIFIED', 'resumed', 'Ready'], ['DELETED', 'gone', 'untested']]);
    } finally {
      resumed.close();
    }
  });

  it('follows git sources, which are not revisioned, by their records', async () => {
    const stream = await openEventStream(`${api.base}/api/v1/watch?kinds=sources`, acme.token);
    try {
      const created = await api.call('POST', '/api/v1/sources', acme.token, { name: 'infra', url: 'https://git.invalid/acme/infra.git', suspended: true });
      expect(created.status).toBe(201);
      const id = (created.body as { id: string }).id;
      expect(watchData(await stream.next(isChange('ADDED', 'infra'))).object.id).toBe(id);
      expect((await api.call('DELETE', `/api/v1/sources/${id}`, acme.token)).status).toBe(204);
      await stream.next(isChange('DELETED', 'infra'));
    } finally {
      stream.close();
    }
  });

  it('refuses unknown kinds and a Last-Event-ID it never sent, and anyone without a token', async () => {
    const badKind = await api.call('GET', '/api/v1/watch?kinds=servers,volumes', acme.token);
    expect(badKind.status).toBe(422);
    expect(JSON.stringify(badKind.body)).toContain('volumes');
    const badId = await openEventStream(`${api.base}/api/v1/watch`, acme.token, { 'Last-Event-ID': 'abc' });
    expect(badId.status).toBe(422);
    badId.close();
    const anonymous = await fetch(`${api.base}/api/v1/watch`);
    expect(anonymous.status).toBe(401);
  });

  it('ends the stream, and its timers, once the client goes', async () => {
    const before = activeWatchStreams();
    const stream = await openEventStream(`${api.base}/api/v1/watch?kinds=providers`, acme.token);
    await stream.next((e) => e.comment === 'heartbeat', 2_000);
    expect(activeWatchStreams()).toBe(before + 1);
    stream.close();
    const deadline = Date.now() + 2_000;
    while (activeWatchStreams() > before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(activeWatchStreams()).toBe(before);
  });
});
