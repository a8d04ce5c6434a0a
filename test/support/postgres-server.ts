/**
 * @module A throwaway PostgreSQL 15 server for tests: a cluster in a temporary directory, made and
 * run by cairn's own local-driver code (initdb and pg_ctl as the `postgres` OS user when the tests
 * run as root), tuned for speed (no fsync), listening on 127.0.0.1 and a free port, its Unix
 * socket in the temporary directory. Without PostgreSQL 15 the suites that need it fail, saying
 * what to install (.ci/run installs it); they never skip.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/drivers/local/free-port.js';
import { PostgresCluster } from '../../src/drivers/local/postgres-cluster.js';
import { postgresInstallations, type PostgresInstallation } from '../../src/drivers/local/postgres-installations.js';
import { postgresOsUser } from '../../src/drivers/local/postgres-os-user.js';

export const POSTGRES_MAJOR = '15';

/** The role the tests log in as: not a superuser, but it may create databases (it owns each one it gets). */
const TEST_ROLE = 'cairn_test';

export interface RunningPostgresServer {
  /** postgres://cairn_test:<password>@127.0.0.1:<port>/postgres */
  readonly url: string;
  /** Makes a fresh, empty database owned by the test role; returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** What the server has written to its log so far (statements too, with `log_statement` in `extraConfig`). */
  log(): string;
  /** Stops the server and removes its files. */
  stop(): Promise<void>;
}

export interface PostgresServerOptions {
  /** postgresql.conf lines added after the tuning for speed: `log_statement = 'mod'`, say. */
  extraConfig?: readonly string[];
}

/** The PostgreSQL 15 installation the tests use; a host without one fails the suite, naming what to install. */
function postgresForTests(env: NodeJS.ProcessEnv = process.env): PostgresInstallation {
  const found = postgresInstallations(env).find((installation) => installation.major === POSTGRES_MAJOR);
  if (found === undefined) {
    throw new Error(`this host has no PostgreSQL ${POSTGRES_MAJOR} server programs (initdb, pg_ctl, postgres); install postgresql-${POSTGRES_MAJOR} (.ci/run does)`);
  }
  return found;
}

const SPEED_OVER_SAFETY = [
  '',
  '# set for tests: nothing here needs to survive a crash',
  'fsync = off',
  'synchronous_commit = off',
  'full_page_writes = off',
  "shared_buffers = '16MB'",
  'max_connections = 20',
  '',
].join('\n');

const DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function startPostgresServer(options: PostgresServerOptions = {}): Promise<RunningPostgresServer> {
  const installation = postgresForTests();
  const dir = mkdtempSync(join(tmpdir(), 'cairn-pg-test-'));
  const cluster = new PostgresCluster(join(dir, 'cluster'), installation, postgresOsUser(), await freePort());
  const stopOnExit = (): void => {
    const pid = cluster.runningPid();
    if (pid !== null) process.kill(pid, 'SIGQUIT'); // the test process is going: stop its server with it
  };
  try {
    await cluster.init();
    appendFileSync(join(cluster.dataDir, 'postgresql.conf'), SPEED_OVER_SAFETY);
    if (options.extraConfig?.length) appendFileSync(join(cluster.dataDir, 'postgresql.conf'), `# set by the test\n${options.extraConfig.join('\n')}\n`);
    await cluster.start();
    process.once('exit', stopOnExit);
    const password = randomBytes(18).toString('hex');
    await cluster.admin('postgres', (client) => client.query(`CREATE ROLE ${TEST_ROLE} LOGIN CREATEDB PASSWORD '${password}'`));
    const urlOf = (database: string): string => `postgres://${TEST_ROLE}:${password}@127.0.0.1:${cluster.port}/${database}`;
    let made = 0;
    return {
      url: urlOf('postgres'),
      async createDatabase(name = `test_${++made}_${randomBytes(4).toString('hex')}`): Promise<string> {
        if (!DATABASE_NAME.test(name)) throw new Error(`"${name}" is not a database name the tests use (lower case letters, digits, _)`);
        await cluster.admin('postgres', (client) => client.query(`CREATE DATABASE ${name} OWNER ${TEST_ROLE}`));
        return urlOf(name);
      },
      log(): string {
        // pg_ctl -l: the server's stderr, where it logs (no logging_collector).
        const file = join(cluster.dir, 'postgres.log');
        return existsSync(file) ? readFileSync(file, 'utf8') : '';
      },
      async stop(): Promise<void> {
        process.removeListener('exit', stopOnExit);
        await cluster.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    process.removeListener('exit', stopOnExit);
    await cluster.destroy().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
