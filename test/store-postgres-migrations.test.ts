/**
 * @module The store's SQL on PostgreSQL 15: the 18 migrations, translated by toPostgres, make the
 * tables and columns SQLite has after them; and every statement of src/store/*.ts, translated,
 * is accepted by PostgreSQL's PREPARE against that schema (it parses and type-checks), with the
 * number of parameters the translation says.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS, REFERENCE_FIELDS } from '../src/model/kinds.js';
import { MIGRATIONS, migrate } from '../src/store/migrate.js';
import { toPostgres } from '../src/store/pg/dialect.js';
import { startPostgresServer, type RunningPostgresServer } from './support/postgres-server.js';
import { sqlSitesOf, storeModules, type Interpolations, type StoreSqlSite } from './support/store-sql-texts.js';

/** Columns by table, each `name` or `name NOT NULL`, in the table's order. */
type Schema = Record<string, string[]>;

function sqliteSchema(): Schema {
  const db = new Database(':memory:');
  try {
    migrate(db);
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).pluck().all() as string[];
    return Object.fromEntries(
      tables.map((table) => {
        const columns = db.pragma(`table_info(${table})`) as Array<{ name: string; notnull: number; pk: number }>;
        return [table, columns.map((c) => (c.notnull === 1 || c.pk > 0 ? `${c.name} NOT NULL` : c.name))];
      }),
    );
  } finally {
    db.close();
  }
}

async function postgresSchema(client: pg.Client): Promise<Schema> {
  const { rows } = await client.query<{ table_name: string; column_name: string; is_nullable: string }>(
    `SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  const schema: Schema = {};
  for (const row of rows) (schema[row.table_name] ??= []).push(row.is_nullable === 'NO' ? `${row.column_name} NOT NULL` : row.column_name);
  return schema;
}

/** What usersOf() narrows with for resources referring to `target`: resources.ts's fragment, per reference field. */
function referenceMatch(target: string): string | undefined {
  const candidates = KINDS.flatMap((kind) => REFERENCE_FIELDS[kind].filter((f) => f.target === target).map((f) => ({ field: f.field, array: f.many })));
  if (candidates.length === 0) return undefined;
  return candidates
    .map((c, i) =>
      c.array
        ? `(r.kind = @kind${i} AND EXISTS (SELECT 1 FROM json_each(r.spec, '$.${c.field}') WHERE value = @name))`
        : `(r.kind = @kind${i} AND json_extract(r.spec, '$.${c.field}') = @name)`,
    )
    .join(' OR ');
}

const MATCH_EXPRESSION = `candidates\n      .map((c, i) =>\n        c.array\n          ? \`(r.kind = @kind\${i} AND EXISTS (SELECT 1 FROM json_each(r.spec, '$.\${c.field}') WHERE value = @name))\`\n          : \`(r.kind = @kind\${i} AND json_extract(r.spec, '$.\${c.field}') = @name)\`,\n      )\n      .join(' OR ')`;

const scope = (prefix: string, narrow: boolean): string =>
  [`${prefix}.tenant = @tenant`, `${prefix}.kind = @kind`, ...(narrow ? [`${prefix}.namespace = @namespace`, `${prefix}.name = @name`] : [])].join(' AND ');

/**
 * The values the store's dynamic texts are built with, by module: each set fills in the
 * interpolations of the texts it names (a text must be filled by at least one set).
 */
const DYNAMIC_VALUES: Record<string, Interpolations[]> = {
  'events.ts': [{ "where.join(' AND ')": 'tenant = @tenant' }, { "where.join(' AND ')": 'tenant = @tenant AND uid = @uid AND id < @beforeId' }],
  'manifest-cache.ts': [{ "batch.map(() => '?').join(',')": '?' }, { "batch.map(() => '?').join(',')": '?,?,?' }],
  'newest-first-page.ts': [
    { table: 'alerts', timeColumn: 'started_at' },
    { table: 'event_webhooks', timeColumn: 'created_at' },
  ],
  'outbox-table.ts': [{ 'this.table': 'alert_deliveries' }, { 'this.table': 'event_webhook_deliveries' }],
  'resource-history.ts': [false, true].map((narrow) => ({ "scopeWhere('r', scope)": scope('r', narrow), "scopeWhere('t', scope)": scope('t', narrow) })),
  'resources.ts': [
    { "where.join(' AND ')": 'r.tenant = @tenant' },
    { "where.join(' AND ')": 'r.tenant = @tenant AND r.kind = @kind AND r.namespace = @namespace AND r.name = @name AND r.source = @source' },
    { where: 'tenant = @tenant' },
    { where: 'tenant = @tenant AND source = @source' },
    ...KINDS.flatMap((kind) => {
      const match = referenceMatch(kind);
      return match === undefined ? [] : [{ [MATCH_EXPRESSION]: match }];
    }),
  ],
};

/** Each site's SQLite texts: the one it has, or those its module's dynamic values make of it. */
function textsOf(site: StoreSqlSite): string[] {
  if (site.text !== undefined) return [site.text];
  return (DYNAMIC_VALUES[site.file] ?? []).map((values) => site.resolve(values)).filter((text): text is string => text !== undefined);
}

const TRANSACTION_CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

describe('the store on PostgreSQL 15', () => {
  let server: RunningPostgresServer;
  let client: pg.Client;

  beforeAll(async () => {
    server = await startPostgresServer();
    client = new pg.Client({ connectionString: await server.createDatabase() });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await server?.stop();
  });

  it('applies every migration, translated, and ends with the tables and columns SQLite has', async () => {
    for (const [i, migration] of MIGRATIONS.entries()) {
      await client.query('BEGIN');
      try {
        await client.query(toPostgres(migration).text);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${i + 1} failed on PostgreSQL: ${(error as Error).message}`, { cause: error });
      }
    }
    const sqlite = sqliteSchema();
    expect(Object.keys(sqlite).length).toBeGreaterThanOrEqual(30);
    expect(await postgresSchema(client)).toEqual(sqlite);
    // The seeded rows are there too, the default tenant stamped in the format nowIso() writes.
    const { rows } = await client.query<{ created_at: string }>(`SELECT created_at FROM tenants WHERE id = 'default'`);
    expect(rows[0]?.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('prepares every statement of src/store, translated, against that schema', async () => {
    const sites = storeModules().flatMap((file) => sqlSitesOf(file).sites);
    expect(storeModules().flatMap((file) => sqlSitesOf(file).missed)).toEqual([]);
    expect(sites.length).toBeGreaterThan(200);
    const uncovered = sites.filter((site) => textsOf(site).length === 0).map((site) => `${site.where} (${site.dynamic.join(', ')})`);
    expect(uncovered).toEqual([]);
    const failures: string[] = [];
    let prepared = 0;
    for (const site of sites) {
      for (const sqlite of textsOf(site)) {
        const { text, count } = toPostgres(sqlite);
        try {
          if (TRANSACTION_CONTROL.test(text)) {
            // PREPARE takes no transaction control: run it (in a transaction of its own when it ends one).
            if (!/^\s*BEGIN\b/i.test(text)) await client.query('BEGIN');
            await client.query(text);
            await client.query('ROLLBACK');
            continue;
          }
          await client.query(`PREPARE store_statement AS ${text}`);
          const { rows } = await client.query<{ parameters: number }>(
            `SELECT cardinality(parameter_types) AS parameters FROM pg_prepared_statements WHERE name = 'store_statement'`,
          );
          await client.query('DEALLOCATE store_statement');
          if (rows[0]?.parameters !== count) failures.push(`${site.where}: PostgreSQL counts ${rows[0]?.parameters} parameters, the translation ${count}`);
          prepared++;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          failures.push(`${site.where}: ${(error as Error).message}\n    ${text.replace(/\s+/g, ' ').trim()}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(prepared).toBeGreaterThan(200);
  });
});
