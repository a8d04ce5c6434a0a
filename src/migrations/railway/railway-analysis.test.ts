import { describe, expect, it } from 'vitest';
import { analyzeRailwayProject, chooseEnvironment, referencedDatabases, type RailwayDatabase } from './railway-analysis.js';
import type { RailwayInstanceRecord, RailwayServiceRecord } from './railway-wire.js';

const ENV = { id: 'env-prod', name: 'production' };

function instance(over: Partial<RailwayInstanceRecord> = {}): RailwayInstanceRecord {
  return { environmentId: ENV.id, startCommand: 'node server.js', buildCommand: 'npm ci', healthcheckPath: null, rootDirectory: null, numReplicas: 2, image: null, repo: 'acme/app', customDomains: [], serviceDomains: [], ...over };
}

function service(name: string, over: Partial<RailwayInstanceRecord> = {}): RailwayServiceRecord {
  return { id: `s-${name}`, name, triggers: [{ environmentId: ENV.id, branch: 'main', repository: 'acme/app' }], instances: [instance(over)] };
}

describe('chooseEnvironment', () => {
  it('takes production, else the first', () => {
    expect(chooseEnvironment([{ id: 'a', name: 'staging' }, { id: 'b', name: 'production' }])?.id).toBe('b');
    expect(chooseEnvironment([{ id: 'a', name: 'staging' }])?.id).toBe('a');
    expect(chooseEnvironment([])).toBeUndefined();
  });
});

describe('referencedDatabases', () => {
  const pg: RailwayDatabase = { name: 'p-postgres', type: 'postgresql', origin: 'postgres:16', urlVariable: 'DATABASE_URL', reference: 'Postgres', serviceId: 's-pg' };
  const mongo: RailwayDatabase = { name: 'p-mongo', type: 'mongodb', origin: 'mongo:7', urlVariable: 'MONGO_URL', reference: 'Mongo', serviceId: 's-mongo' };

  it('finds the databases variables refer to, the one behind DATABASE_URL first', () => {
    const vars = { ANALYTICS_DB: '${{ Mongo.MONGO_URL }}', DATABASE_URL: '${{Postgres.DATABASE_URL}}', PGHOST: '${{Postgres.PGHOST}}', PLAIN: 'x' };
    expect(referencedDatabases(vars, [pg, mongo])).toEqual({ used: [pg, mongo], databaseVars: ['DATABASE_URL', 'ANALYTICS_DB', 'PGHOST'] });
  });

  it('ignores references to services that are no database', () => {
    expect(referencedDatabases({ API: 'https://${{api.RAILWAY_PUBLIC_DOMAIN}}' }, [pg])).toEqual({ used: [], databaseVars: [] });
  });
});

describe('analyzeRailwayProject', () => {
  const facts = (services: RailwayServiceRecord[], variables: Record<string, Record<string, string>> = {}) => ({
    project: { id: 'p-1', name: 'My Project' }, environment: ENV, services, plugins: [], variables: new Map(Object.entries(variables)), githubUrl: 'https://github.example/',
  });

  it('names Apps and Databases <project>-<service>, clones from CAIRN_GITHUB_URL and keeps RAILWAY_* vars home', () => {
    const analysis = analyzeRailwayProject(facts(
      [service('API'), service('pg', { repo: null, image: 'postgres:16.2' })],
      { 's-API': { DATABASE_URL: '${{pg.DATABASE_URL}}', RAILWAY_PRIVATE_DOMAIN: 'api.railway.internal', TOKEN: 't' } },
    ));
    expect(analysis.apps[0]).toMatchObject({ name: 'my-project-api', origin: 'API', port: 8080, databases: ['my-project-pg'], configVarNames: ['TOKEN'], source: { kind: 'git', url: 'https://github.example/acme/app.git', ref: 'main' } });
    expect(analysis.databases).toEqual([{ name: 'my-project-pg', type: 'postgresql', origin: 'postgres:16.2', urlVariable: 'DATABASE_URL', version: '16.2' }]);
    expect(analysis.processes).toEqual([{ type: 'API', command: 'node server.js', quantity: 2, web: false }]);
  });

  it('skips services not deployed in the environment and warns of a root directory', () => {
    const elsewhere: RailwayServiceRecord = { ...service('old'), instances: [instance({ environmentId: 'env-staging' })] };
    const analysis = analyzeRailwayProject(facts([elsewhere, service('mono', { rootDirectory: 'apps/web' })]));
    expect(analysis.apps.map((a) => a.origin)).toEqual(['mono']);
    expect(analysis.warnings).toEqual(['service "mono" builds from apps/web of its repository; cairn runs the App\'s build and command from the repository\'s root']);
  });

  it('warns of a service with no source at all', () => {
    const analysis = analyzeRailwayProject(facts([service('empty', { repo: null })]));
    expect(analysis.apps).toEqual([]);
    expect(analysis.warnings).toEqual(['service "empty" has no source on Railway; it does not move']);
  });
});
