import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UrlSettingError } from '../net/url-setting.js';
import { createMigrationPlatforms } from './platforms.js';

/** A loopback server that records where requests went and answers what a test sets. */
let seen: Array<{ path: string; accept: string | undefined; authorization: string | undefined }> = [];
let reply: unknown = [];
const server = createServer((req: IncomingMessage, res) => {
  seen.push({ path: req.url ?? '', accept: req.headers.accept, authorization: req.headers.authorization });
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply)));
});
let base = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('createMigrationPlatforms', () => {
  it('gives Heroku and Railway under their ids', () => {
    const platforms = createMigrationPlatforms({});
    expect(platforms.heroku.id).toBe('heroku');
    expect(platforms.railway.id).toBe('railway');
  });

  it('sends Heroku calls to CAIRN_HEROKU_API_URL with Heroku’s media type and the key as a bearer token', async () => {
    seen = [];
    reply = [];
    const { heroku } = createMigrationPlatforms({ CAIRN_HEROKU_API_URL: `${base}/heroku/` });
    expect(await heroku.list('HRKU-key')).toEqual([]);
    expect(seen).toEqual([{ path: '/heroku/apps', accept: 'application/vnd.heroku+json; version=3', authorization: 'Bearer HRKU-key' }]);
  });

  it('sends Railway queries to <CAIRN_RAILWAY_API_URL>/graphql/v2', async () => {
    seen = [];
    reply = { data: { projects: { edges: [], pageInfo: { hasNextPage: false, endCursor: null } } } };
    const { railway } = createMigrationPlatforms({ CAIRN_RAILWAY_API_URL: base });
    expect(await railway.list('rw-token')).toEqual([]);
    expect(seen.map((s) => [s.path, s.authorization])).toEqual([['/graphql/v2', 'Bearer rw-token']]);
  });

  it('clones Railway services from CAIRN_GITHUB_URL', async () => {
    const environment = { id: 'env-1', name: 'production' };
    const service = {
      id: 's-1', name: 'web',
      repoTriggers: { edges: [] },
      serviceInstances: { edges: [{ node: { environmentId: 'env-1', startCommand: 'npm start', buildCommand: null, healthcheckPath: null, rootDirectory: null, numReplicas: 1, source: { image: null, repo: 'acme/web' }, domains: { customDomains: [], serviceDomains: [] } } }] },
    };
    const empty = { edges: [], pageInfo: { hasNextPage: false, endCursor: null } };
    const answers: unknown[] = [
      { data: { project: { id: 'p-1', name: 'Acme', environments: { edges: [{ node: environment }], pageInfo: { hasNextPage: false, endCursor: null } }, plugins: empty } } },
      { data: { project: { services: { edges: [{ node: service }], pageInfo: { hasNextPage: false, endCursor: null } } } } },
      { data: { variables: {} } },
    ];
    const sendNext = server.listeners('request')[0] as (...args: unknown[]) => void;
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: import('node:http').ServerResponse) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers.shift())));
    });
    try {
      const { railway } = createMigrationPlatforms({ CAIRN_RAILWAY_API_URL: base, CAIRN_GITHUB_URL: 'http://127.0.0.1:9418/git/' });
      const analysis = await railway.analyze('rw-token', 'p-1');
      expect(analysis.apps[0]!.source).toEqual({ kind: 'git', url: 'http://127.0.0.1:9418/git/acme/web.git', ref: 'main' });
    } finally {
      server.removeAllListeners('request');
      server.on('request', sendNext);
    }
  });

  it('goes through the outbound guard: loopback is refused unless the operator opened it', async () => {
    const saved = process.env['CAIRN_ALLOW_PRIVATE_ENDPOINTS'];
    delete process.env['CAIRN_ALLOW_PRIVATE_ENDPOINTS'];
    seen = [];
    try {
      // By name: a new origin, so a new connection, which the guard checks (pooled ones were checked when made).
      const named = base.replace('127.0.0.1', 'localhost');
      const { heroku, railway } = createMigrationPlatforms({ CAIRN_HEROKU_API_URL: named, CAIRN_RAILWAY_API_URL: named });
      await expect(heroku.list('HRKU-key')).rejects.toThrow(/cairn does not connect to localhost \(it resolves to [^)]+\): it is a loopback address/);
      await expect(railway.list('rw-token')).rejects.toThrow(/cairn does not connect to localhost/);
      expect(seen).toEqual([]);
    } finally {
      process.env['CAIRN_ALLOW_PRIVATE_ENDPOINTS'] = saved;
    }
  });

  it('refuses a setting that is not an http(s) URL, naming it', () => {
    expect(() => createMigrationPlatforms({ CAIRN_HEROKU_API_URL: 'ftp://heroku.example' })).toThrow(UrlSettingError);
    expect(() => createMigrationPlatforms({ CAIRN_RAILWAY_API_URL: 'not a url' })).toThrow(/CAIRN_RAILWAY_API_URL/);
    expect(() => createMigrationPlatforms({ CAIRN_HEROKU_API_URL: 'https://user:pw@api.heroku.example' })).toThrow(/CAIRN_HEROKU_API_URL: the URL must not carry a user name or password/);
  });
});
