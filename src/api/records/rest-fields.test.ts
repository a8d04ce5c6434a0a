/**
 * @module The codecs through the one field table: bodies land where the schema puts each field
 * (null takes a clearable one out, as the OpenAPI document promises), records show the schema's
 * defaults, and a nested field that needs its sibling is refused at that sibling, not dropped.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import type { Kind } from '../../model/kinds.js';
import type { StoredResource } from '../../model/resource.js';
import { updatedAppManifest } from './app-record.js';
import { databaseManifest, updatedDatabaseManifest } from './database-record.js';
import { checkManifest } from './manifest-check.js';
import { applyBodyFields, specRecordFields } from './rest-fields.js';
import { validateBody } from '../request-validation.js';
import { updatedProviderManifest } from './provider-record.js';
import { serverManifest } from './server-record.js';

function stored<K extends Kind>(kind: K, spec: StoredResource<K>['spec']): StoredResource<K> {
  return {
    uid: '00000000-0000-4000-8000-000000000001', tenant: 'default', kind, namespace: 'default', name: 'x', labels: {}, annotations: {}, spec,
    generation: 1, resourceVersion: 1, specVersion: 1, statusVersion: 1, source: 'api', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z',
    deletionTimestamp: null, status: { phase: 'pending', observedGeneration: 0, conditions: [] },
  };
}

function refusal(make: () => unknown): Array<{ pointer: string; message: string }> {
  try {
    make();
  } catch (error) {
    if (error instanceof ValidationError) return error.issues ?? [];
    throw error;
  }
  throw new Error('was not refused');
}

describe('app updates', () => {
  const app = stored('App', { server: 'web', source: { image: 'nginx' }, build: 'npm ci', command: 'node .', port: 8080, healthCheck: { path: '/up', timeoutSeconds: 5 } });

  it('take build, command and port out of the spec when given null (the document says they are clearable)', () => {
    const manifest = checkManifest(updatedAppManifest(app, { build: null, command: null, port: null }, undefined));
    expect(manifest.spec).toEqual({ server: 'web', source: { image: 'nginx' }, healthCheck: { path: '/up', timeoutSeconds: 5 } });
  });

  it('take health_check_path out with null and keep the rest of the health check', () => {
    expect(checkManifest(updatedAppManifest(app, { health_check_path: null }, undefined)).spec.healthCheck).toEqual({ timeoutSeconds: 5 });
    const bare = stored('App', { server: 'web', source: { image: 'nginx' }, healthCheck: { path: '/up' } });
    expect(checkManifest(updatedAppManifest(bare, { health_check_path: null }, undefined)).spec).not.toHaveProperty('healthCheck');
  });

  it('set a nested field without losing its siblings', () => {
    expect(updatedAppManifest(app, { health_check_path: '/ready' }, undefined).spec.healthCheck).toEqual({ path: '/ready', timeoutSeconds: 5 });
  });
});

describe('database bodies', () => {
  it('put backup_schedule and backup_retention into spec.backup', () => {
    const manifest = databaseManifest({ name: 'db', type: 'postgresql', server_id: 'x', version: '16', backup_schedule: '0 3 * * *', backup_retention: 3 }, { server: 'web' });
    expect(manifest.spec).toEqual({ type: 'postgresql', server: 'web', version: '16', backup: { schedule: '0 3 * * *', retention: 3 } });
  });

  it('refuse a retention for a database without a schedule at backup_schedule, rather than dropping it', () => {
    const db = stored('Database', { type: 'postgresql', server: 'web', version: '16' });
    expect(refusal(() => checkManifest(updatedDatabaseManifest(db, { backup_retention: 3 })))).toEqual([{ pointer: '/backup_schedule', message: 'is required' }]);
  });

  it('take the whole backup policy out when the schedule is set to null', () => {
    const db = stored('Database', { type: 'postgresql', server: 'web', version: '16', backup: { schedule: '0 3 * * *', retention: 3 } });
    expect(checkManifest(updatedDatabaseManifest(db, { backup_schedule: null })).spec).not.toHaveProperty('backup');
  });
});

describe('records', () => {
  it('show the schema default where the spec leaves a field out, and null where it has none', () => {
    expect(specRecordFields('Database', { type: 'mongodb', server: 'web', version: '7' })).toEqual({
      // deletionPolicy has no schema default: Delete unless imported, which the records decide (effectiveDeletionPolicy).
      type: 'mongodb', version: '7', storage_gb: null, backup_schedule: null, backup_retention: null, deletion_policy: null, managed: false, region: null, size: null,
    });
    expect(specRecordFields('Database', { type: 'postgresql', server: 'web', version: '16', backup: { schedule: '0 3 * * *' } })).toMatchObject({ backup_retention: 7 });
    expect(specRecordFields('Server', { provider: 'p', region: 'eu-1', size: 'small' })).toEqual({ region: 'eu-1', size: 'small', host: null, port: 22, user: 'root', image: 'debian-12', state: 'running', deletion_policy: null });
    expect(specRecordFields('App', { server: 'web', source: { path: '/srv' } })).toMatchObject({ env: {}, build: null, health_check_path: null, state: 'running' });
  });
});

describe('other bodies', () => {
  it('leave reference fields to the codec, which names the resource', () => {
    const spec = { provider: 'by-name' };
    applyBodyFields('Server', 'create', { provider_id: '00000000-0000-4000-8000-000000000001' }, spec);
    expect(spec).toEqual({ provider: 'by-name' });
    expect(serverManifest({ name: 's', provider_id: 'x', region: 'eu-1', size: 'small' }, 'p').spec).toEqual({ provider: 'p', region: 'eu-1', size: 'small', image: 'debian-12' });
  });

  it('take a provider endpoint out with null', () => {
    const provider = stored('Provider', { vendor: 'sandbox', endpoint: 'http://127.0.0.1:9100' });
    expect(updatedProviderManifest(provider, { endpoint: null }, false).spec).toEqual({ vendor: 'sandbox' });
  });
});

describe('request bodies, as the generated document checks them', () => {
  const server = '00000000-0000-4000-8000-000000000002';

  it('refuse a create with backup_retention and no backup_schedule, naming the missing field', () => {
    expect(refusal(() => validateBody('post', '/databases', { name: 'db', type: 'postgresql', server_id: server, version: '16', backup_retention: 3 })))
      .toEqual([{ pointer: '/backup_schedule', message: 'is required with backup_retention' }]);
  });

  it('refuse storage_gb for mongodb at storage_gb', () => {
    expect(refusal(() => validateBody('post', '/databases', { name: 'db', type: 'mongodb', server_id: server, version: '7', storage_gb: 5 })))
      .toEqual([{ pointer: '/storage_gb', message: 'is not allowed here' }]);
  });

  it('take null for an app\'s clearable fields, and not for its source', () => {
    expect(validateBody('put', '/apps/{id}', { build: null, command: null, port: null, health_check_path: null })).toEqual({ build: null, command: null, port: null, health_check_path: null });
    expect(refusal(() => validateBody('put', '/apps/{id}', { source: null })).map((i) => i.pointer)).toEqual(['/source']);
  });
});
