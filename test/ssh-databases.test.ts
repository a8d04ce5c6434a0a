/**
 * The SSH runtime's databases against a real sshd on loopback and this machine's PostgreSQL:
 * the databases half of the runtime contract, then what the contract does not see — the
 * credentials work through the endpoint, backups sealed at rest with the plaintext's SHA-256, a
 * tampered backup refused with the database unchanged, a killed cluster observed down and
 * started by update, a lost data dir finding the database on the host by key, an interrupted
 * creation made again, hostile names and passwords kept away from any shell, MongoDB refused.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseDesired, DatabaseEndpoint, RuntimeDriver } from '../src/drivers/contract.js';
import { VendorRejectedError } from '../src/drivers/errors.js';
import { sqlName } from '../src/drivers/local/databases.js';
import { postgresInstallations } from '../src/drivers/local/postgres-installations.js';
import { verifiedPlaintext } from '../src/drivers/local/postgres-backups.js';
import { runRuntimeDriverContract, waitUntil } from '../src/drivers/driver.contract.js';
import { SshDatabases, type HostDatabaseRecord } from '../src/drivers/ssh/databases.js';
import { confString, hbaLines, listeningPorts, psqlMetaString } from '../src/drivers/ssh/remote-cluster.js';
import type { RemoteHost } from '../src/drivers/ssh/remote-host.js';
import { choosePostgres, installCommand, parseInstallations, postgresOn } from '../src/drivers/ssh/remote-postgres.js';
import { RuntimeIndex } from '../src/drivers/ssh/runtime-index.js';
import { startSshRuntimeFixture, type SshRuntimeFixture } from './support/ssh-runtime-fixture.js';

const major = postgresInstallations()[0]?.major ?? '15';
const SETTLE_MS = 60_000;

function notUnderTest(): Promise<never> {
  return Promise.reject(new Error('apps are not under test in this file'));
}

function runtimeOf(databases: SshDatabases): RuntimeDriver {
  return {
    vendor: 'ssh',
    databases,
    apps: { observe: notUnderTest, create: notUnderTest, update: notUnderTest, delete: notUnderTest, logs: notUnderTest },
    close: () => databases.close(),
  };
}

/** Stops every cluster cairn made under the runtime dir (they outlive cairn by design). */
function stopClusters(runtimeDir: string): void {
  const root = join(runtimeDir, 'databases');
  if (!existsSync(root)) return;
  const bin = postgresInstallations()[0]?.binDir ?? '';
  for (const id of readdirSync(root)) {
    const data = join(root, id, 'data');
    if (existsSync(join(data, 'postmaster.pid'))) spawnSync('runuser', ['-u', 'postgres', '--', join(bin, 'pg_ctl'), 'stop', '-D', data, '-m', 'immediate', '-w'], { cwd: '/' });
  }
}

async function connect(endpoint: DatabaseEndpoint, password: string): Promise<pg.Client> {
  const client = new pg.Client({ host: endpoint.host, port: endpoint.port, user: endpoint.username, database: endpoint.database, password });
  await client.connect();
  return client;
}

async function passwordWorks(endpoint: DatabaseEndpoint, password: string): Promise<boolean> {
  try {
    await (await connect(endpoint, password)).end();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === '28P01') return false; // invalid_password
    throw error;
  }
}

async function query(endpoint: DatabaseEndpoint, password: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const client = await connect(endpoint, password);
  try {
    return (await client.query(sql)).rows as Array<Record<string, unknown>>;
  } finally {
    await client.end();
  }
}

describe('the SSH runtime\'s databases', () => {
  // A missing PostgreSQL fails the suite (never a skip): .ci/run installs it.
  beforeAll(() => {
    if (postgresInstallations().length === 0) throw new Error('no PostgreSQL server is installed: the SSH database suite runs real clusters (apt-get install postgresql; .ci/run installs it)');
  });

  runRuntimeDriverContract(
    'ssh databases',
    async () => {
      const fixture = await startSshRuntimeFixture();
      const databases = new SshDatabases(fixture.options);
      return {
        driver: runtimeOf(databases),
        placement: fixture.placement,
        cleanup: async () => {
          stopClusters(fixture.runtimeDir);
          await fixture.cleanup();
        },
        passwordWorks: (_id, endpoint, password) => passwordWorks(endpoint, password),
      };
    },
    { parts: ['databases'], settleTimeoutMs: SETTLE_MS, database: { type: 'postgresql', version: major } },
  );

  describe('beyond the contract', () => {
    let fixture: SshRuntimeFixture;
    let databases: SshDatabases;
    let counter = 0;

    beforeAll(async () => {
      fixture = await startSshRuntimeFixture();
      databases = new SshDatabases(fixture.options);
    });

    afterAll(async () => {
      if (fixture) stopClusters(fixture.runtimeDir);
      await databases?.close();
      await fixture?.cleanup();
    });

    function desired(name: string, password = `pw-${counter}-${Date.now()}`): DatabaseDesired {
      return { name, type: 'postgresql', version: major, storageGb: 10, placement: fixture.placement, password };
    }

    async function available(name: string, password?: string): Promise<{ id: string; key: string; want: DatabaseDesired }> {
      counter += 1;
      const key = `k-${name}-${counter}`;
      const want = desired(name, password);
      const created = await databases.create(key, want);
      await waitUntil(() => databases.observe({ key, externalId: created.id }), (d) => d?.status === 'available', SETTLE_MS, `${name} to be available`);
      return { id: created.id, key, want };
    }

    async function completedBackup(id: string, key: string): Promise<{ id: string; checksum: string; file: string }> {
      const started = await databases.createBackup(id, key);
      const done = await waitUntil(() => databases.observeBackup({ key }), (b) => b?.status === 'completed' || b?.status === 'failed', SETTLE_MS, 'backup to complete');
      expect(done?.message).toBeNull();
      const file = join(fixture.dataDir, 'ssh-runtime', 'backups', `${started.id}.sealed`);
      return { id: started.id, checksum: done?.checksum ?? '', file };
    }

    it('seals backups at rest with the plaintext\'s SHA-256, restores one, and refuses a tampered one leaving the database unchanged', async () => {
      const { id, key, want } = await available('restored');
      const endpoint = await databases.endpoint(id);
      await query(endpoint, want.password, "create table notes (body text); insert into notes values ('before')");
      const backup = await completedBackup(id, `${key}-backup`);
      await query(endpoint, want.password, "insert into notes values ('after')");

      // Sealed at rest: no pg_dump magic in the file; the checksum is the SHA-256 of the plaintext dump.
      expect(readFileSync(backup.file).includes(Buffer.from('PGDMP'))).toBe(false);
      const chunks: Buffer[] = [];
      for await (const chunk of verifiedPlaintext(backup.file, fixture.options.dataKeys, backup.checksum)) chunks.push(chunk as Buffer);
      const plaintext = Buffer.concat(chunks);
      expect(plaintext.subarray(0, 5).toString()).toBe('PGDMP');
      expect(backup.checksum).toBe(`sha256:${createHash('sha256').update(plaintext).digest('hex')}`);

      const size = statSync(backup.file).size;
      const fd = openSync(backup.file, 'r+');
      writeSync(fd, Buffer.from([0x42]), 0, 1, Math.floor(size / 2));
      closeSync(fd);
      const tampered = databases.restore(id, backup.id, `${key}-restore-tampered`);
      await expect(tampered).rejects.toBeInstanceOf(VendorRejectedError);
      await expect(tampered).rejects.toThrow(/altered|refusing/);
      expect((await query(endpoint, want.password, 'select body from notes order by body')).map((r) => r.body)).toEqual(['after', 'before']);
      expect((await databases.observe({ key, externalId: id }))?.status).toBe('available');

      const good = await completedBackup(id, `${key}-backup-2`);
      await query(endpoint, want.password, "delete from notes where body = 'before'");
      await databases.restore(id, good.id, `${key}-restore`);
      await waitUntil(() => databases.observe({ key, externalId: id }), (d) => d?.status === 'available', SETTLE_MS, 'restore to finish');
      expect((await query(endpoint, want.password, 'select body from notes order by body')).map((r) => r.body)).toEqual(['after', 'before']);
    });

    it('observes a killed cluster as down, update starts it again, and delete removes it', async () => {
      const { id, key, want } = await available('killed');
      const data = join(fixture.runtimeDir, 'databases', id, 'data');
      const bin = postgresInstallations()[0]?.binDir ?? '';
      const killed = spawnSync('runuser', ['-u', 'postgres', '--', join(bin, 'pg_ctl'), 'stop', '-D', data, '-m', 'immediate', '-w'], { cwd: '/', encoding: 'utf8' });
      expect(killed.status).toBe(0);
      expect((await databases.observe({ key, externalId: id }))?.down).toMatch(/not running/);
      const updated = await databases.update(id, want);
      expect(updated.down).toBeUndefined();
      const endpoint = await databases.endpoint(id);
      expect(await passwordWorks(endpoint, want.password)).toBe(true);

      // Deleted: its cluster stopped, its directory and host record gone; deleting again succeeds.
      await databases.delete(id);
      await databases.delete(id);
      expect(existsSync(join(fixture.runtimeDir, 'databases', id))).toBe(false);
      expect(existsSync(join(fixture.runtimeDir, 'records', 'databases', `${id}.json`))).toBe(false);
      expect(await databases.observe({ key })).toBeNull();
      await expect(passwordWorks(endpoint, want.password)).rejects.toThrow(/ECONNREFUSED/);
    });

    it('finds a database on its host by key when cairn\'s data dir is lost, making no second cluster', async () => {
      const { id, key, want } = await available('index-lost');
      const before = readdirSync(join(fixture.runtimeDir, 'databases')).length;
      const freshDataDir = mkdtempSync(join(tmpdir(), 'cairn-ssh-data-lost-'));
      try {
        const lost = new SshDatabases({ ...fixture.options, dataDir: freshDataDir, index: RuntimeIndex.of(freshDataDir) });
        expect(await lost.observe({ key })).toBeNull();
        const again = await lost.create(key, want);
        expect(again.id).toBe(id);
        expect(again.status).toBe('available');
        expect((await lost.observe({ key }))?.id).toBe(id);
        expect(readdirSync(join(fixture.runtimeDir, 'databases')).length).toBe(before);
        await lost.close();
      } finally {
        rmSync(freshDataDir, { recursive: true, force: true });
      }
    });

    it('reports a creation whose worker died as interrupted, and update makes it again', async () => {
      const host = await fixture.options.hosts.host(fixture.target);
      const dead = spawnSync('true').pid;
      const id = 'pg-interrupted1';
      const key = 'k-interrupted';
      const want = desired('interrupted', 'first-and-only');
      const record: HostDatabaseRecord = {
        id, key, name: want.name, serverId: fixture.placement.serverExternalId, type: 'postgresql', version: major, storageGb: 10,
        port: 1, username: 'interrupted', database: 'interrupted', status: 'creating', message: null, engineVersion: null, binDir: null,
        endpointHost: '127.0.0.1', listen: ['127.0.0.1'], restores: [], worker: { host: hostname(), pid: dead },
      };
      fixture.options.index.put({ kind: 'database', id, key, serverId: fixture.placement.serverExternalId, target: fixture.target });
      await host.putRecord('databases', id, record);
      expect((await databases.observe({ key }))?.interrupted).toMatch(/cairn stopped/);
      expect((await databases.create(key, want)).id).toBe(id);
      const rebuilding = await databases.update(id, want);
      expect(rebuilding.interrupted).toBeUndefined();
      expect(rebuilding.port).not.toBe(1); // a fresh free port: the one it had may be taken by now
      const rebuilt = await waitUntil(() => databases.observe({ key }), (d) => d?.status !== 'creating', SETTLE_MS, 'rebuilt database');
      expect(rebuilt).toMatchObject({ status: 'available', message: null });
      expect(await passwordWorks(await databases.endpoint(id), want.password)).toBe(true);
    });

    it('gives credentials that connect through the endpoint, keeping a hostile name and password away from every shell and SQL text', async () => {
      const hostile = 'a"; rm -rf / #';
      expect(sqlName(hostile)).toMatch(/^[a-z_][a-z0-9_]*$/);
      const password = `it's "x" \\ $(touch /tmp/pwned-cairn) ;\nDROP ROLE postgres; -- :'y'`;
      const { id, want } = await available(hostile, password);
      expect(existsSync('/tmp/pwned-cairn')).toBe(false);
      const endpoint = await databases.endpoint(id);
      expect(endpoint).toMatchObject({ host: fixture.placement.serverAddress, username: sqlName(hostile), database: sqlName(hostile) });
      const rows = await query(endpoint, want.password, 'select current_user as who, current_database() as db, version() as v');
      expect(rows[0]).toMatchObject({ who: sqlName(hostile), db: sqlName(hostile) });
      expect(String(rows[0]?.v)).toContain(`PostgreSQL ${major}`);
      // The cluster runs as the postgres OS user, in the runtime dir.
      expect(statSync(join(fixture.runtimeDir, 'databases', id, 'data')).uid).toBe(Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()));
      const next = `${password}\r\nsecond`;
      await databases.setPassword(id, next);
      expect(await passwordWorks(endpoint, next)).toBe(true);
      expect(await passwordWorks(endpoint, password)).toBe(false);
    });

    it('refuses MongoDB, naming the vendors whose managed service runs it', async () => {
      const create = databases.create('k-mongo', { ...desired('docs'), type: 'mongodb', version: '7' });
      await expect(create).rejects.toBeInstanceOf(VendorRejectedError);
      await expect(create).rejects.toThrow(/managed: true.*digitalocean/);
      expect(await databases.observe({ key: 'k-mongo' })).toBeNull();
    });

  });
});

describe('PostgreSQL on a host, by itself', () => {
  it('reads the installations a host has, newest first, and picks the asked major else the newest', () => {
    const found = parseInstallations('/usr/lib/postgresql/15/bin\tinitdb (PostgreSQL) 15.14\n/usr/lib/postgresql/16/bin\tinitdb (PostgreSQL) 16.4\n/usr/bin\tinitdb (PostgreSQL) 16.2\nnonsense\n');
    expect(found).toEqual([
      { major: '16', version: '16.4', binDir: '/usr/lib/postgresql/16/bin' },
      { major: '15', version: '15.14', binDir: '/usr/lib/postgresql/15/bin' },
    ]);
    expect(choosePostgres(found, '15')?.version).toBe('15.14');
    expect(choosePostgres(found, '17')?.version).toBe('16.4');
    expect(choosePostgres([], '15')).toBeUndefined();
  });

  it('installs with the host\'s package manager, non-interactively', () => {
    expect(installCommand('apt-get')).toEqual(['env', 'DEBIAN_FRONTEND=noninteractive', 'sh', '-c', 'apt-get update -q && apt-get install -y -q postgresql']);
    expect(installCommand('dnf')?.slice(0, 4)).toEqual(['dnf', 'install', '-y', 'postgresql-server']);
    expect(installCommand('apk')?.slice(0, 3)).toEqual(['apk', 'add', '--no-progress']);
    expect(installCommand(null)).toBeUndefined();
  });

  it('refuses a host without PostgreSQL where cairn may not install, saying what to install by hand', async () => {
    const ran: string[][] = [];
    const host = {
      facts: { runtimeDir: '/var/lib/cairn', root: false, systemd: false, packageManager: 'apt-get', python3: null },
      session: { label: 'deploy@203.0.113.9:22' },
      run: (argv: string[]) => {
        ran.push(argv);
        return argv[0] === 'sudo' ? Promise.reject(new Error('sudo: a password is required')) : Promise.resolve('');
      },
    } as unknown as RemoteHost;
    const refusal = postgresOn(host, 'shop', '16');
    await expect(refusal).rejects.toBeInstanceOf(VendorRejectedError);
    await expect(refusal).rejects.toThrow(/no PostgreSQL server and cairn cannot install it .*apt-get install postgresql/);
    expect(ran.some((argv) => argv.includes('install'))).toBe(false);
  });

  it('quotes what goes into postgresql.conf, pg_hba.conf and psql meta-commands', () => {
    expect(confString("/x/it's\\")).toBe("'/x/it''s\\\\'");
    expect(psqlMetaString("a'b\\c\nd")).toBe("'a''b\\\\c\\nd'");
    expect(() => psqlMetaString('a\0b')).toThrow(/NUL/);
    expect(hbaLines(['127.0.0.1', '10.0.0.5', 'not-an-ip', '::1', '2001:db8::1'])).toBe('\n# set by cairn\nhost all all 10.0.0.5/32 scram-sha-256\nhost all all 2001:db8::1/128 scram-sha-256\n');
    expect(hbaLines(['127.0.0.1'])).toBe('');
  });

  it('reads the listening ports of /proc/net/tcp', () => {
    const text = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:1538 00000000:0000 0A 00000000:00000000 00:00000000 00000000   101        0 1 1',
      '   1: 0100007F:9C40 0100007F:1538 01 00000000:00000000 00:00000000 00000000     0        0 2 1',
    ].join('\n');
    expect([...listeningPorts(text)]).toEqual([5432]);
  });
});
