/**
 * @module cairn's Heroku client against the Heroku double (test/doubles/heroku/), which checks
 * every request and answer against Heroku's own Platform API document: list (paged), analyze
 * (every field), config var values and database URLs, and Heroku's failures as cairn's errors.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, ProviderError, RateLimitedError, ValidationError } from '../../src/model/errors.js';
import { createHerokuPlatform } from '../../src/migrations/heroku/heroku-platform.js';
import type { MigrationPlatform } from '../../src/migrations/platform.js';
import { HEROKU_ACCEPT, startHerokuDouble, type HerokuDouble } from '../doubles/heroku/heroku-double.js';

const KEY = 'HRKU-test-key-0123456789abcdef';
let double: HerokuDouble;
let heroku: MigrationPlatform;
let shopId: string;

beforeAll(async () => {
  double = await startHerokuDouble({ apiKeys: [KEY, 'HRKU-key-for-rate-limits', 'HRKU-key-for-long-limits'], maxPageSize: 2 });
  heroku = createHerokuPlatform({ baseUrl: double.url });
  shopId = double.addApp({
    name: 'shop',
    stack: 'heroku-24',
    formation: [
      { type: 'web', command: 'npm start', quantity: 2 },
      { type: 'worker', command: 'node worker.js', quantity: 1 },
    ],
    buildpacks: ['heroku/nodejs'],
    configVars: { NODE_ENV: 'production', SECRET_TOKEN: 's3cr3t', DATABASE_URL: 'postgres://u:p@db.example.com:5432/shop', REDIS_URL: 'redis://r.example.com:6379' },
    addons: [
      { name: 'redis-curved-12345', service: 'heroku-redis', plan: 'heroku-redis:mini', configVars: ['REDIS_URL'] },
      { name: 'postgresql-curly-12345', service: 'heroku-postgresql', plan: 'heroku-postgresql:essential-0', configVars: ['DATABASE_URL'] },
    ],
    domains: [{ hostname: 'www.shop.example' }],
    builds: [
      { status: 'succeeded', sourceUrl: 'https://sources.example.com/old.tgz', createdAt: '2026-01-01T00:00:00Z' },
      { status: 'succeeded', sourceUrl: 'https://sources.example.com/shop-v2.tgz?token=abc', createdAt: '2026-02-01T00:00:00Z' },
      { status: 'failed', sourceUrl: 'https://sources.example.com/broken.tgz', createdAt: '2026-03-01T00:00:00Z' },
    ],
  }).app['id'] as string;
  double.addApp({ name: 'blog', formation: [{ type: 'worker', command: 'python job.py' }], buildpacks: ['heroku/python'] });
  double.addApp({
    name: 'api',
    formation: [{ type: 'web', command: 'bin/api' }],
    buildpacks: ['https://github.com/heroku/heroku-buildpack-go'],
    addons: [{ name: 'mongo-slim-777', service: 'mongolab', plan: 'mongolab:sandbox', configVars: ['MONGODB_URI'] }],
    builds: [{ status: 'succeeded', sourceUrl: 'https://git.example.com/acme/api.git', version: '4f2a9c1' }],
    configVars: { MONGODB_URI: 'mongodb://u:p@mongo.example.com:27017/api' },
  });
});

afterAll(async () => {
  await double.close();
});

afterEach(() => {
  expect(double.violations).toEqual([]);
});

describe('list', () => {
  it('reads every app over more than one page, with its process types and databases', async () => {
    const before = double.count('GET /apps');
    const listing = await heroku.list(KEY);
    expect(listing.map((l) => l.name)).toEqual(['api', 'blog', 'shop']);
    expect(listing.find((l) => l.name === 'shop')).toEqual({ id: shopId, name: 'shop', services: ['web', 'worker'], databases: ['postgresql-curly-12345'] });
    expect(listing.find((l) => l.name === 'api')).toMatchObject({ services: ['web'], databases: ['mongo-slim-777'] });
    expect(listing.find((l) => l.name === 'blog')).toMatchObject({ services: ['worker'], databases: [] });
    // Three apps on pages of two: the list took two requests, then two per app.
    expect(double.calls.filter((c) => c === 'GET /apps').length).toBe(2);
    expect(double.count('GET /apps') - before).toBe(2 + 3 * 2);
  });
});

describe('analyze', () => {
  it('turns an app into what cairn would create, every field', async () => {
    const analysis = await heroku.analyze(KEY, 'shop');
    expect(analysis).toEqual({
      platform: 'heroku',
      subject: { id: shopId, name: 'shop' },
      stack: 'heroku-24',
      buildpacks: ['heroku/nodejs'],
      processes: [
        { type: 'web', command: 'npm start', quantity: 2, web: true },
        { type: 'worker', command: 'node worker.js', quantity: 1, web: false },
      ],
      configVarNames: ['NODE_ENV', 'SECRET_TOKEN', 'DATABASE_URL', 'REDIS_URL'],
      addons: [
        { name: 'redis-curved-12345', service: 'heroku-redis', plan: 'heroku-redis:mini', supported: false },
        { name: 'postgresql-curly-12345', service: 'heroku-postgresql', plan: 'heroku-postgresql:essential-0', supported: true },
      ],
      databases: [{ name: 'postgresql-curly-12345', type: 'postgresql', origin: 'heroku-postgresql:essential-0', urlVariable: 'DATABASE_URL' }],
      apps: [
        {
          name: 'shop',
          origin: 'shop',
          build: 'npm ci && npm run build --if-present',
          command: 'npm start',
          port: 8080,
          configVarNames: ['NODE_ENV', 'SECRET_TOKEN', 'REDIS_URL'],
          databases: ['postgresql-curly-12345'],
          source: { kind: 'tarball', url: 'https://sources.example.com/shop-v2.tgz?token=abc' },
          domains: ['www.shop.example'],
        },
      ],
      domains: ['www.shop.example'],
      warnings: [
        'process type "worker" (node worker.js) has no port; cairn runs web processes only, so it does not move',
        'add-on "redis-curved-12345" (heroku-redis:mini) has no cairn equivalent and does not move; REDIS_URL keep pointing at it on Heroku',
      ],
    });
    expect(JSON.stringify(analysis)).not.toContain('s3cr3t');
  });

  it('finds an app by its id too, reads builds newest first and stops at the first succeeded one', async () => {
    const before = double.calls.length;
    const analysis = await heroku.analyze(KEY, shopId);
    expect(analysis.subject.name).toBe('shop');
    // Builds are read by started_at, newest first: the failed build is skipped for the one before it.
    expect(analysis.apps[0]!.source).toEqual({ kind: 'tarball', url: 'https://sources.example.com/shop-v2.tgz?token=abc' });
    // Pages of two: the first page (failed, v2) holds a succeeded build, so the third build is never asked for.
    expect(double.calls.slice(before).filter((c) => c.endsWith('/builds'))).toHaveLength(1);
  });

  it('takes a git source at the build’s version, a MongoDB add-on’s URI and a buildpack given by URL', async () => {
    const analysis = await heroku.analyze(KEY, 'api');
    expect(analysis.apps[0]).toMatchObject({ build: 'go build -o bin/ ./...', command: 'bin/api', source: { kind: 'git', url: 'https://git.example.com/acme/api.git', ref: '4f2a9c1' }, databases: ['mongo-slim-777'] });
    expect(analysis.databases).toEqual([{ name: 'mongo-slim-777', type: 'mongodb', origin: 'mongolab:sandbox', urlVariable: 'MONGODB_URI' }]);
  });

  it('makes no App of an app without a web process, and says so', async () => {
    const analysis = await heroku.analyze(KEY, 'blog');
    expect(analysis.apps).toEqual([]);
    expect(analysis.warnings).toContain('app "blog" has no web process; cairn runs web processes only, so no App is created');
  });
});

describe('values at migrate time', () => {
  it('reads the config var values of the app and the URL of one of its databases', async () => {
    expect(await heroku.readConfigVars(KEY, 'shop', 'shop')).toEqual({
      NODE_ENV: 'production', SECRET_TOKEN: 's3cr3t', DATABASE_URL: 'postgres://u:p@db.example.com:5432/shop', REDIS_URL: 'redis://r.example.com:6379',
    });
    expect(await heroku.readDatabaseUrl(KEY, 'shop', 'postgresql-curly-12345')).toBe('postgres://u:p@db.example.com:5432/shop');
  });

  it('reads a MongoDB add-on’s URL from the config var it sets', async () => {
    expect(await heroku.readDatabaseUrl(KEY, 'api', 'mongo-slim-777')).toBe('mongodb://u:p@mongo.example.com:27017/api');
  });

  it('refuses an origin or database the app does not have', async () => {
    await expect(heroku.readConfigVars(KEY, 'shop', 'blog')).rejects.toBeInstanceOf(NotFoundError);
    await expect(heroku.readDatabaseUrl(KEY, 'shop', 'redis-curved-12345')).rejects.toThrow(/no database add-on that becomes "redis-curved-12345"/);
  });
});

describe('Heroku’s failures', () => {
  it('a key Heroku refuses is a ValidationError on api_key that never quotes the key', async () => {
    const badKey = 'HRKU-wrong-key-99999';
    const error = await heroku.analyze(badKey, 'shop').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe('Heroku refused the API key: Invalid credentials provided.');
    expect((error as ValidationError).issues.map((i) => i.pointer)).toEqual(['/api_key']);
    expect(JSON.stringify({ ...(error as object), message: (error as Error).message, stack: (error as Error).stack })).not.toContain(badKey);
    await expect(heroku.list('')).rejects.toBeInstanceOf(ValidationError);
  });

  it('an app Heroku does not know is a NotFoundError naming it', async () => {
    const error = await heroku.analyze(KEY, 'no-such-app').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toBe('Heroku has no app "no-such-app" this API key can see: Couldn\'t find that app.');
  });

  it('a short 429 is waited out and the request sent again', async () => {
    double.rateLimit = { count: 1, retryAfterSeconds: 1 };
    const before = double.calls.length;
    const started = Date.now();
    expect((await heroku.readConfigVars('HRKU-key-for-rate-limits', 'shop', 'shop'))['NODE_ENV']).toBe('production');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    // The app read twice (429, then 200), then its config vars.
    expect(double.calls.slice(before)).toEqual(['GET /apps/shop', 'GET /apps/shop', `GET /apps/${shopId}/config-vars`]);
  });

  it('a passing 503 is retried; one that lasts is a ProviderError with Heroku’s message', async () => {
    double.serverErrors = 1;
    expect((await heroku.analyze(KEY, 'api')).subject.name).toBe('api');
    double.serverErrors = 10;
    const error = await heroku.analyze(KEY, 'api').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toBe('heroku: read app "api": 503 Heroku is temporarily unavailable');
    double.serverErrors = 0;
  });

  it('a long 429 is a RateLimitedError with Heroku’s Retry-After', async () => {
    double.rateLimit = { count: 1, retryAfterSeconds: 120 };
    const error = await heroku.analyze('HRKU-key-for-long-limits', 'shop').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterSeconds).toBe(120);
    expect(double.rateLimit.count).toBe(0);
    // Until the Retry-After passes, the key's next call is refused at once, without asking Heroku.
    const before = double.calls.length;
    const again = await heroku.list('HRKU-key-for-long-limits').catch((e: unknown) => e);
    expect(again).toBeInstanceOf(RateLimitedError);
    expect((again as RateLimitedError).retryAfterSeconds).toBeGreaterThan(100);
    expect(double.calls.length).toBe(before);
  });

  it('refuses a subject that is neither an app name nor an id on app_name, before calling Heroku', async () => {
    const before = double.calls.length;
    for (const subject of ['../account', 'Shop', 'a', 'shop/formation']) {
      const error = await heroku.analyze(KEY, subject).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.map((i) => i.pointer)).toEqual(['/app_name']);
    }
    expect(double.calls.length).toBe(before);
  });
});

describe('the double holds cairn to Heroku’s document', () => {
  it('refuses a request body the document does not allow, naming the violation', async () => {
    const answer = await fetch(`${double.url}/apps/shop/config-vars`, {
      method: 'PATCH',
      headers: { accept: HEROKU_ACCEPT, authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ 'not a name!': 'x' }),
    });
    expect(answer.status).toBe(500);
    expect(((await answer.json()) as { message: string }).message).toMatch(/body breaks the schema of PATCH .*config-vars.*must NOT have additional properties \("not a name!"\)/);
    expect(double.violations).toHaveLength(1);
    double.violations.length = 0;
  });

  it('refuses to send an answer that breaks the document, and cairn reports it as a ProviderError', async () => {
    const records = double.addApp({ name: 'corrupt', formation: [{ type: 'web', command: 'x' }] });
    (records.formation[0] as Record<string, unknown>)['quantity'] = 'two';
    const error = await heroku.analyze(KEY, 'corrupt').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toMatch(/formation.*500 .*targetSchema.*\/0\/quantity must be integer/);
    expect(double.violations.length).toBeGreaterThan(0);
    double.violations.length = 0;
    double.apps.delete('corrupt');
  });

  it('refuses a path whose app identity is neither a uuid nor an app name', async () => {
    const answer = await fetch(`${double.url}/apps/Not_An_App`, { headers: { accept: HEROKU_ACCEPT, authorization: `Bearer ${KEY}` } });
    expect(answer.status).toBe(500);
    expect(((await answer.json()) as { message: string }).message).toMatch(/path parameter "Not_An_App" is not a #\/definitions\/app\/definitions\/identity/);
    double.violations.length = 0;
  });
});
