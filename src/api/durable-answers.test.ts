/** @module Tests of commitBeforeAnswering: the answer to a write starts only after the open commit group is committed; reads do not commit. */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { commitBeforeAnswering } from './durable-answers.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** An app whose handlers note when they answer, behind the middleware with a commit group double that notes its commits. */
async function serve(): Promise<{ url: string; log: string[] }> {
  const log: string[] = [];
  const app = express();
  app.use(commitBeforeAnswering({ commitNow: () => log.push('commit') }));
  app.post('/json', (_req, res) => {
    log.push('handler');
    res.status(202).json({ ok: true });
  });
  app.delete('/empty', (_req, res) => {
    log.push('handler');
    res.status(204).end();
  });
  app.get('/read', (_req, res) => {
    log.push('handler');
    res.json({ ok: true });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  close = () => new Promise((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, log };
}

describe('commitBeforeAnswering', () => {
  it('commits before the answer to a POST (res.json) and a DELETE (res.end) is sent', async () => {
    const { url, log } = await serve();
    expect((await fetch(`${url}/json`, { method: 'POST' })).status).toBe(202);
    expect((await fetch(`${url}/empty`, { method: 'DELETE' })).status).toBe(204);
    expect(log).toEqual(['handler', 'commit', 'handler', 'commit']);
  });

  it('does not commit for a GET', async () => {
    const { url, log } = await serve();
    expect((await fetch(`${url}/read`)).status).toBe(200);
    expect(log).toEqual(['handler']);
  });
});
