/**
 * @module Which platform databases cairn can bring along, and as what: a Heroku add-on by its
 * service (`heroku-postgresql` → PostgreSQL, the MongoDB add-ons → MongoDB), a Railway plugin
 * by its type, and a Railway database service by its image (`ghcr.io/railwayapp-templates/
 * postgres-ssl:16`, `postgres:16`, `mongo:7`), with the major version its tag names. Whatever
 * else (Redis, MySQL, a search add-on) is answered `undefined`, for the analysis to warn about.
 */

export type CairnDatabaseType = 'postgresql' | 'mongodb';

/** The config var that carries each type's connection URL by convention (Heroku and Railway alike). */
export const URL_VARIABLE: Readonly<Record<CairnDatabaseType, string>> = { postgresql: 'DATABASE_URL', mongodb: 'MONGO_URL' };

/** Heroku add-on services that are a MongoDB database (mLab, ObjectRocket, ORMongo, Compose). */
const HEROKU_MONGODB_SERVICES: ReadonlySet<string> = new Set(['mongolab', 'mongohq', 'ormongo', 'objectrocket-for-mongodb', 'compose-mongodb']);

/** The cairn database type of a Heroku add-on service, or undefined when cairn has none for it. */
export function herokuAddonDatabaseType(service: string): CairnDatabaseType | undefined {
  if (service === 'heroku-postgresql') return 'postgresql';
  if (HEROKU_MONGODB_SERVICES.has(service) || /(^|-)mongo(db)?(-|$)/.test(service)) return 'mongodb';
  return undefined;
}

/** The cairn database type of a Railway plugin type (`postgresql`, `mongodb`, `redis`, `mysql`). */
export function railwayPluginDatabaseType(plugin: string): CairnDatabaseType | undefined {
  const name = plugin.toLowerCase();
  return name === 'postgresql' || name === 'mongodb' ? name : undefined;
}

export interface ImageDatabase {
  /** The engine the image runs: `postgresql`, `mongodb` (cairn's types), or one cairn has no type for (`redis`). */
  engine: string;
  /** The major (or major.minor) version the tag names, when it names one. */
  version?: string;
}

const IMAGE_ENGINES: ReadonlyArray<[RegExp, string]> = [
  [/^(postgres|postgresql|postgres-ssl|postgis|timescaledb(-ha)?|pgvector)$/, 'postgresql'],
  [/^(mongo|mongodb|mongodb-community-server)$/, 'mongodb'],
  [/^(redis|redis-stack|valkey|keydb)$/, 'redis'],
  [/^(mysql|mariadb|percona-server)$/, 'mysql'],
  [/^(clickhouse|clickhouse-server)$/, 'clickhouse'],
  [/^(minio)$/, 'minio'],
];

/** The database engine an image runs, from its last path segment (`ghcr.io/org/postgres-ssl:16` → postgresql 16); undefined for an image that is no database cairn knows of. */
export function imageDatabase(image: string): ImageDatabase | undefined {
  const withoutDigest = image.trim().split('@')[0]!;
  const lastSlash = withoutDigest.lastIndexOf('/');
  const nameAndTag = withoutDigest.slice(lastSlash + 1);
  const colon = nameAndTag.indexOf(':');
  const name = (colon === -1 ? nameAndTag : nameAndTag.slice(0, colon)).toLowerCase();
  const tag = colon === -1 ? '' : nameAndTag.slice(colon + 1);
  const engine = IMAGE_ENGINES.find(([pattern]) => pattern.test(name))?.[1];
  if (engine === undefined) return undefined;
  const version = /^v?(\d+(?:\.\d+)?)/.exec(tag)?.[1];
  return version === undefined ? { engine } : { engine, version };
}

/** `engine` as a cairn database type, when cairn has one. */
export function asCairnType(engine: string): CairnDatabaseType | undefined {
  return engine === 'postgresql' || engine === 'mongodb' ? engine : undefined;
}
