/**
 * @module Test fixture: a MigrationPlatform over fixed data (one Heroku-like app with a web
 * process and a PostgreSQL database), answering as a real platform client would: a wrong key is
 * a ValidationError on api_key, an unknown app a NotFoundError. It counts its reads, so tests
 * can tell whether a step asked the platform again.
 */
import { NotFoundError, ValidationError } from '../model/errors.js';
import type { PlatformMigration } from '../store/platform-migrations.js';
import type { Store } from '../store/store.js';
import type { MigrationPlatform, PlatformAnalysis, PlatformListing } from './platform.js';

export const FIXED_KEY = 'fixed-platform-key';

export interface FixedPlatformData {
  analysis: PlatformAnalysis;
  configVars: Record<string, string>;
  databaseUrls: Record<string, string>;
}

/** A migration of the fixed analysis onto server web-1, recorded in `store` with these steps. */
export function recordFixedMigration(store: Store, stepNames: readonly string[], manifests = ''): PlatformMigration {
  return store.platformMigrations.create({
    tenant: 'default',
    platform: 'heroku',
    subject: 'shop',
    subjectName: 'shop',
    serverId: 'server-uid',
    serverName: 'web-1',
    analysis: fixedAnalysis() as unknown as Record<string, unknown>,
    manifests,
    createdBy: 'user-1',
    stepNames,
  });
}

export function fixedAnalysis(overrides: Partial<PlatformAnalysis> = {}): PlatformAnalysis {
  return {
    platform: 'heroku',
    subject: { id: 'app-1', name: 'shop' },
    stack: 'heroku-24',
    buildpacks: ['heroku/nodejs'],
    processes: [
      { type: 'web', command: 'node server.js', quantity: 1, web: true },
      { type: 'worker', command: 'node worker.js', quantity: 1, web: false },
    ],
    configVarNames: ['DATABASE_URL', 'GREETING'],
    addons: [{ name: 'postgresql-shop', service: 'heroku-postgresql', plan: 'essential-0', supported: true }],
    databases: [{ name: 'shop-db', type: 'postgresql', origin: 'heroku-postgresql:essential-0', urlVariable: 'DATABASE_URL', version: '15' }],
    apps: [
      {
        name: 'shop',
        origin: 'shop',
        build: 'npm ci',
        command: 'node server.js',
        port: 5000,
        configVarNames: ['DATABASE_URL', 'GREETING'],
        databases: ['shop-db'],
        source: { kind: 'git', url: 'https://git.example.com/shop.git', ref: 'main' },
        healthCheckPath: '/healthz',
        domains: [],
      },
    ],
    domains: [],
    warnings: ['process worker has no port: it does not move'],
    ...overrides,
  };
}

export class FixedPlatform implements MigrationPlatform {
  readonly id = 'heroku' as const;
  readonly reads = { configVars: 0, databaseUrls: 0 };

  constructor(readonly data: FixedPlatformData) {}

  private check(apiKey: string, subject?: string): void {
    if (apiKey !== FIXED_KEY) throw new ValidationError('api_key: the platform refused the key', [{ pointer: '/api_key', message: 'refused by the platform' }]);
    if (subject !== undefined && subject !== this.data.analysis.subject.name && subject !== this.data.analysis.subject.id) {
      throw new NotFoundError(`the platform has no app ${subject}`);
    }
  }

  list(apiKey: string): Promise<PlatformListing[]> {
    this.check(apiKey);
    const { analysis } = this.data;
    return Promise.resolve([{ id: analysis.subject.id, name: analysis.subject.name, services: analysis.processes.map((p) => p.type), databases: analysis.databases.map((d) => d.name) }]);
  }

  analyze(apiKey: string, subject: string): Promise<PlatformAnalysis> {
    this.check(apiKey, subject);
    return Promise.resolve(this.data.analysis);
  }

  readConfigVars(apiKey: string, subject: string, origin: string): Promise<Record<string, string>> {
    this.check(apiKey, subject);
    if (!this.data.analysis.apps.some((a) => a.origin === origin)) throw new NotFoundError(`no app ${origin}`);
    this.reads.configVars++;
    return Promise.resolve({ ...this.data.configVars });
  }

  readDatabaseUrl(apiKey: string, subject: string, database: string): Promise<string> {
    this.check(apiKey, subject);
    const url = this.data.databaseUrls[database];
    if (url === undefined) throw new NotFoundError(`no database ${database}`);
    this.reads.databaseUrls++;
    return Promise.resolve(url);
  }
}
