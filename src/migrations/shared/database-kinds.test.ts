import { describe, expect, it } from 'vitest';
import { asCairnType, herokuAddonDatabaseType, imageDatabase, railwayPluginDatabaseType } from './database-kinds.js';

describe('Heroku add-ons', () => {
  it('maps heroku-postgresql to PostgreSQL and the MongoDB add-ons to MongoDB', () => {
    expect(herokuAddonDatabaseType('heroku-postgresql')).toBe('postgresql');
    expect(herokuAddonDatabaseType('mongolab')).toBe('mongodb');
    expect(herokuAddonDatabaseType('ormongo')).toBe('mongodb');
    expect(herokuAddonDatabaseType('objectrocket-for-mongodb')).toBe('mongodb');
  });

  it('has no type for Redis, logging or search add-ons', () => {
    for (const service of ['heroku-redis', 'papertrail', 'bonsai', 'heroku-kafka', 'mongoose-analytics']) expect(herokuAddonDatabaseType(service)).toBeUndefined();
  });
});

describe('Railway plugins', () => {
  it('maps the postgresql and mongodb plugins and nothing else', () => {
    expect(railwayPluginDatabaseType('postgresql')).toBe('postgresql');
    expect(railwayPluginDatabaseType('mongodb')).toBe('mongodb');
    expect(railwayPluginDatabaseType('redis')).toBeUndefined();
    expect(railwayPluginDatabaseType('mysql')).toBeUndefined();
  });
});

describe('database images', () => {
  it('reads the engine and the major version from Railway’s templates and Docker Hub images', () => {
    expect(imageDatabase('ghcr.io/railwayapp-templates/postgres-ssl:16')).toEqual({ engine: 'postgresql', version: '16' });
    expect(imageDatabase('postgres:16.4-alpine')).toEqual({ engine: 'postgresql', version: '16.4' });
    expect(imageDatabase('docker.io/library/mongo:7.0')).toEqual({ engine: 'mongodb', version: '7.0' });
    expect(imageDatabase('mongo')).toEqual({ engine: 'mongodb' });
    expect(imageDatabase('postgres:latest')).toEqual({ engine: 'postgresql' });
    expect(imageDatabase('bitnami/redis:7.2@sha256:abc')).toEqual({ engine: 'redis', version: '7.2' });
    expect(imageDatabase('mysql:8')).toEqual({ engine: 'mysql', version: '8' });
  });

  it('says nothing of an image that is no database', () => {
    expect(imageDatabase('nginx:1.27')).toBeUndefined();
    expect(imageDatabase('ghcr.io/acme/postgres-exporter:1')).toBeUndefined();
  });

  it('names only PostgreSQL and MongoDB as cairn types', () => {
    expect(asCairnType('postgresql')).toBe('postgresql');
    expect(asCairnType('redis')).toBeUndefined();
  });
});
