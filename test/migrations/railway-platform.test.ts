/**
 * @module cairn's Railway client against the Railway double (test/doubles/railway/), which
 * validates every query and its variables against Railway's own GraphQL schema and executes it
 * over its seeded state: list (paged), analyze (every field), variable values and database
 * URLs, and Railway's failures as cairn's errors.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, ProviderError, RateLimitedError, ValidationError } from '../../src/model/errors.js';
import type { MigrationPlatform } from '../../src/migrations/platform.js';
import { createRailwayPlatform } from '../../src/migrations/railway/railway-platform.js';
import { startRailwayDouble, type RailwayDouble } from '../doubles/railway/railway-double.js';

const KEY = 'railway-token-0123456789abcdef';
const PG_URL = 'postgresql://postgres:pw@postgres.railway.internal:5432/railway';
let double: RailwayDouble;
let railway: MigrationPlatform;
let shopId: string;
let blogId: string;

beforeAll(async () => {
  double = await startRailwayDouble({ apiKeys: [KEY, 'railway-token-short-limit', 'railway-token-long-limit'], maxPageSize: 2 });
  railway = createRailwayPlatform({ baseUrl: double.url, githubUrl: 'https://github.com' });
  shopId = double.addProject({
    name: 'Shop',
    environments: ['staging', 'production'],
    services: [
      {
        name: 'web', repo: 'acme/shop', branch: 'release', startCommand: 'npm start', buildCommand: 'npm ci && npm run build', healthcheckPath: '/health',
        customDomains: ['shop.example.com'], serviceDomain: { domain: 'web-production.up.railway.app', targetPort: 3000 },
        variables: { NODE_ENV: 'production', SECRET: 's3cr3t', DATABASE_URL: '${{Postgres.DATABASE_URL}}', RAILWAY_ENVIRONMENT: 'production' },
      },
      { name: 'Postgres', image: 'ghcr.io/railwayapp-templates/postgres-ssl:16', variables: { DATABASE_URL: PG_URL, PGHOST: 'postgres.railway.internal' } },
      { name: 'Redis', image: 'redis:7', variables: { REDIS_URL: 'redis://default:pw@redis.railway.internal:6379' } },
      { name: 'worker-image', image: 'acme/worker:1' },
    ],
  }).id;
  blogId = double.addProject({
    name: 'Blog',
    plugins: [{ name: 'postgresql', friendlyName: 'BlogDB', variables: { DATABASE_URL: 'postgresql://blog:pw@plugin.example:5432/blog' } }],
    services: [{ name: 'app', repo: 'acme/blog', variables: { DATABASE_URL: '${{BlogDB.DATABASE_URL}}' } }],
  }).id;
  double.addProject({ name: 'Empty' });
});

afterAll(async () => {
  await double.close();
});

afterEach(() => {
  expect(double.violations).toEqual([]);
});

describe('list', () => {
  it('pages through projects and their services, with the databases cairn would create', async () => {
    const listing = await railway.list(KEY);
    expect(listing).toEqual([
      { id: shopId, name: 'Shop', services: ['web', 'Postgres', 'Redis', 'worker-image'], databases: ['shop-postgres'] },
      { id: blogId, name: 'Blog', services: ['app'], databases: ['blog-blogdb'] },
      { id: expect.any(String), name: 'Empty', services: [], databases: [] },
    ]);
    // Pages of two: two pages of projects, and Shop's four services took their own pages.
    expect(double.calls.filter((c) => c === 'CairnProjects')).toHaveLength(2);
    expect(double.calls.filter((c) => c === 'CairnProjectServices').length).toBeGreaterThanOrEqual(2);
  });
});

describe('analyze', () => {
  it('turns a project into what cairn would create, every field', async () => {
    const analysis = await railway.analyze(KEY, shopId);
    expect(analysis).toEqual({
      platform: 'railway',
      subject: { id: shopId, name: 'Shop' },
      buildpacks: [],
      processes: [
        { type: 'web', command: 'npm start', quantity: 1, web: true },
        { type: 'worker-image', command: '', quantity: 1, web: false },
      ],
      configVarNames: ['NODE_ENV', 'SECRET', 'DATABASE_URL', 'RAILWAY_ENVIRONMENT', 'PGHOST', 'REDIS_URL'],
      addons: [
        { name: 'Postgres', service: 'postgresql', plan: 'ghcr.io/railwayapp-templates/postgres-ssl:16', supported: true },
        { name: 'Redis', service: 'redis', plan: 'redis:7', supported: false },
      ],
      databases: [{ name: 'shop-postgres', type: 'postgresql', origin: 'ghcr.io/railwayapp-templates/postgres-ssl:16', urlVariable: 'DATABASE_URL', version: '16' }],
      apps: [
        {
          name: 'shop-web',
          origin: 'web',
          build: 'npm ci && npm run build',
          command: 'npm start',
          port: 3000,
          configVarNames: ['NODE_ENV', 'SECRET'],
          databases: ['shop-postgres'],
          source: { kind: 'git', url: 'https://github.com/acme/shop.git', ref: 'release' },
          healthCheckPath: '/health',
          domains: ['shop.example.com'],
        },
      ],
      domains: ['shop.example.com'],
      warnings: [
        'service "Redis" runs redis (redis:7), which cairn has no kind for; it does not move',
        'service "worker-image" runs the image acme/worker:1; cairn migrates services built from a repository, so it does not move',
      ],
    });
    expect(JSON.stringify(analysis)).not.toContain('s3cr3t');
    expect(JSON.stringify(analysis)).not.toContain(PG_URL);
  });

  it('maps a plugin database, and warns of what Railway leaves to its builder', async () => {
    const analysis = await railway.analyze(KEY, blogId);
    expect(analysis.databases).toEqual([{ name: 'blog-blogdb', type: 'postgresql', origin: 'Railway plugin postgresql', urlVariable: 'DATABASE_URL' }]);
    expect(analysis.apps[0]).toMatchObject({ name: 'blog-app', command: '', port: 8080, databases: ['blog-blogdb'], configVarNames: [], source: { kind: 'git', url: 'https://github.com/acme/blog.git', ref: 'main' } });
    expect(analysis.warnings).toEqual([
      'service "app" has no deploy trigger in production; cairn deploys branch main of acme/blog',
      'service "app" has no start command on Railway (its builder finds one); set the App\'s command before it deploys',
      'service "app" has no build command on Railway (its builder infers one); set the App\'s build if it needs one',
    ]);
  });
});

describe('values at migrate time', () => {
  it('reads a service’s rendered variables and a database service’s URL', async () => {
    expect(await railway.readConfigVars(KEY, shopId, 'web')).toEqual({ NODE_ENV: 'production', SECRET: 's3cr3t', DATABASE_URL: PG_URL, RAILWAY_ENVIRONMENT: 'production' });
    expect(await railway.readDatabaseUrl(KEY, shopId, 'shop-postgres')).toBe(PG_URL);
  });

  it('reads a plugin’s URL through the service that refers to it', async () => {
    expect(await railway.readDatabaseUrl(KEY, blogId, 'blog-blogdb')).toBe('postgresql://blog:pw@plugin.example:5432/blog');
  });

  it('refuses a service or database the project does not have', async () => {
    await expect(railway.readConfigVars(KEY, shopId, 'nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(railway.readDatabaseUrl(KEY, shopId, 'shop-redis')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('Railway’s failures', () => {
  it('a token Railway refuses is a ValidationError on api_key that never quotes the token', async () => {
    const badKey = 'railway-wrong-token-42';
    const error = await railway.list(badKey).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toBe('Railway refused the API key: Not Authorized');
    expect((error as ValidationError).issues.map((i) => i.pointer)).toEqual(['/api_key']);
    expect(`${(error as Error).message} ${(error as Error).stack ?? ''}`).not.toContain(badKey);
  });

  it('a project Railway does not know is a NotFoundError naming it', async () => {
    const error = await railway.analyze(KEY, 'no-such-project').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toBe('Railway has no project "no-such-project" this API key can see: Project not found');
  });

  it('a short 429 is waited out and the query sent again', async () => {
    double.rateLimit = { count: 1, retryAfterSeconds: 1 };
    const before = double.calls.length;
    expect(await railway.readDatabaseUrl('railway-token-short-limit', shopId, 'shop-postgres')).toBe(PG_URL);
    expect(double.calls[before]).toBe('CairnProject');
    expect(double.calls[before + 1]).toBe('CairnProject');
  });

  it('a 5xx is a ProviderError with Railway’s message', async () => {
    double.serverErrors = 1;
    const error = await railway.analyze(KEY, shopId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toBe(`railway: read project "${shopId}": 502 Bad Gateway`);
    expect(double.serverErrors).toBe(0);
  });

  it('a long 429 is a RateLimitedError with Railway’s Retry-After', async () => {
    double.rateLimit = { count: 1, retryAfterSeconds: 90 };
    const error = await railway.analyze('railway-token-long-limit', shopId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterSeconds).toBe(90);
    // Until the Retry-After passes, the token's next call is refused at once, without asking Railway.
    const before = double.calls.length;
    await expect(railway.list('railway-token-long-limit')).rejects.toBeInstanceOf(RateLimitedError);
    expect(double.calls.length).toBe(before);
  });

  it('refuses a subject that is not a project id on project_id, before calling Railway', async () => {
    const before = double.calls.length;
    const error = await railway.analyze(KEY, '../../me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.pointer)).toEqual(['/project_id']);
    expect(double.calls.length).toBe(before);
  });
});

describe('the double holds cairn to Railway’s schema', () => {
  const post = (query: string, variables: Record<string, unknown> = {}) =>
    fetch(`${double.url}/graphql/v2`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });

  it('refuses a query asking for a field Railway does not have', async () => {
    const answer = await post('query Bad($id: String!) { project(id: $id) { id herokuStack } }', { id: shopId });
    expect(answer.status).toBe(500);
    expect(JSON.stringify(await answer.json())).toContain('Cannot query field \\"herokuStack\\" on type \\"Project\\"');
    expect(double.violations).toHaveLength(1);
    double.violations.length = 0;
  });

  it('refuses variables of the wrong type', async () => {
    const answer = await post('query P($first: Int!) { projects(first: $first) { edges { node { id } } } }', { first: 'ten' });
    expect(answer.status).toBe(500);
    expect(JSON.stringify(await answer.json())).toMatch(/Variable \\"\$first\\" got invalid value \\"ten\\"/);
    double.violations.length = 0;
  });
});
