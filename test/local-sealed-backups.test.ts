/**
 * @module Backups of a real PostgreSQL database on the local vendor, sealed at rest under the data
 * dir's master key (the store's keyring, as `cairn serve` gives it): a marker value written to the
 * database is nowhere in the backup file's bytes; the backup restores; after `keys rotate` the old
 * key is gone from the key file and the backup still restores; an old plain backup (made before
 * sealing) still restores; a sealed backup with one flipped byte is refused and nothing changes,
 * and a restore that finds a bad record or checksum only mid-stream is rolled back.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { BackupObserved, RuntimeDriver } from '../src/drivers/contract.js';
import { waitUntil } from '../src/drivers/driver.contract.js';
import { VendorRejectedError } from '../src/drivers/errors.js';
import { localVendor } from '../src/drivers/local/index.js';
import { acquireLocalHost } from '../src/drivers/local/local-host.js';
import { restoreDatabase, verifiedPlaintext } from '../src/drivers/local/postgres-backups.js';
import { postgresInstallations } from '../src/drivers/local/postgres-installations.js';
import { readKeyringFile } from '../src/secrets/keyring-file.js';
import { SEALED_HEADER_BYTES, SEALED_MAGIC } from '../src/secrets/sealed-stream.js';
import { Store } from '../src/store/store.js';
import { stopLocalClusters } from './support/local-clusters.js';

const VERSION = postgresInstallations()[0]?.major ?? 'none';
const root = mkdtempSync(join(tmpdir(), 'cairn-sealed-backups-'));
const dataDir = join(root, 'state');
const stores: Store[] = [];

afterAll(async () => {
  for (const store of stores) store.close();
  await stopLocalClusters(dataDir);
  rmSync(root, { recursive: true, force: true });
});

function openStore(): Store {
  const store = Store.open(dataDir, { env: {} });
  stores.push(store);
  return store;
}

describe('sealed backups of a local PostgreSQL database', () => {
  it('hold no plaintext, restore, survive a master key rotation, and refuse a flipped byte; old plain backups still restore', async () => {
    const store = openStore();
    store.secrets.put('default', 'database-password', 'orders', 'kept-in-the-store'); // the data dir has a key file, as under serve
    const config = { providerName: 'host', spec: { vendor: 'local' }, credentials: undefined, dataDir, requestTimeoutMs: 10_000, dataKeys: store.secrets };
    const cloud = await localVendor.createCloudDriver(config);
    const runtime = await localVendor.createRuntimeDriver(config);
    try {
      const server = await cloud.servers.create('host', { name: 'h', region: 'local', size: 'host', image: 'debian-12' });
      const password = randomBytes(12).toString('hex');
      const created = await runtime.databases.create('db', { name: 'sealed-db', type: 'postgresql', version: VERSION, storageGb: 1, placement: { serverExternalId: server.id, serverAddress: '127.0.0.1' }, password });
      const dbId = created.id;
      await waitUntil(() => runtime.databases.observe({ key: 'db', externalId: dbId }), (d) => d?.status === 'available', 60_000, 'the database');
      const endpoint = await runtime.databases.endpoint(dbId);
      const sql = async <T extends pg.QueryResultRow>(text: string): Promise<T[]> => {
        const client = new pg.Client({ ...endpoint, user: endpoint.username, password });
        await client.connect();
        try {
          return (await client.query<T>(text)).rows;
        } finally {
          await client.end();
        }
      };
      const marker = `marker-${randomBytes(8).toString('hex')}`;
      await sql('create table notes (id serial primary key, body text not null)');
      // pg_dump compresses table data, but not its table of contents: the comment is in a plain dump as it is.
      await sql(`comment on table notes is '${marker}'`);
      await sql(`insert into notes (body) select '${marker} ' || md5(random()::text) || md5(random()::text) || md5(n::text) from generate_series(1, 3000) n`);
      const count = async (): Promise<number> => Number((await sql<{ n: string }>('select count(*) as n from notes'))[0]?.n);
      const backup = await backUp(runtime, dbId, 'b1');
      const file = join(dataDir, 'local', 'backups', `${backup.id}.dump`);
      const bytes = readFileSync(file);

      // Sealed: its magic, and the marker nowhere in the file, in any common encoding, though the plain dump has it.
      expect(bytes.subarray(0, SEALED_MAGIC.length).equals(SEALED_MAGIC)).toBe(true);
      expect(bytes.length).toBeGreaterThan(SEALED_HEADER_BYTES + 64 * 1024); // several chunks
      const plain = join(root, 'plain.dump');
      await pipeline(verifiedPlaintext(file, store.secrets, backup.checksum ?? ''), createWriteStream(plain));
      expect(readFileSync(plain).includes(Buffer.from(marker))).toBe(true);
      expect(bytes.includes(Buffer.from(marker))).toBe(false);
      expect(bytes.includes(Buffer.from(marker, 'utf16le'))).toBe(false);
      expect(backup.checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(backup.sizeBytes).toBe(bytes.length);

      const restore = async (key: string): Promise<void> => {
        await runtime.databases.restore(dbId, backup.id, key);
        await waitUntil(() => runtime.databases.observe({ key: 'db', externalId: dbId }), (d) => d?.status === 'available', 60_000, `restore ${key}`);
        await runtime.databases.restore(dbId, backup.id, key); // throws when the restore failed
      };
      await sql('delete from notes');
      await restore('r1');
      expect(await count()).toBe(3000);

      // Rotation by another process (`cairn keys rotate`): the old key leaves the key file; this one reloads.
      const oldKeyId = store.secrets.describeMasterKey().keyId;
      const rotated = openStore().rotateMasterKey();
      expect(rotated).toMatchObject({ rewrappedBackups: 1, droppedKeyIds: [oldKeyId] });
      expect(readKeyringFile(join(dataDir, 'master.key'))?.map((k) => k.id)).toEqual([rotated.activeKeyId]);
      await sql('delete from notes');
      await restore('r2');
      expect(await count()).toBe(3000);

      // An old plain backup, as written before sealing: still restores, checked by its checksum.
      expect(readFileSync(plain).subarray(0, 5).toString()).toBe('PGDMP');
      writeFileSync(file, readFileSync(plain));
      await sql('delete from notes where id > 1000');
      await restore('r3');
      expect(await count()).toBe(3000);

      // A sealed backup with one flipped byte is refused before anything changes.
      const second = await backUp(runtime, dbId, 'b2');
      const secondFile = join(dataDir, 'local', 'backups', `${second.id}.dump`);
      const altered = readFileSync(secondFile);
      altered[altered.length - 100]! ^= 1;
      writeFileSync(secondFile, altered);
      await sql('delete from notes where id > 10');
      const refused = runtime.databases.restore(dbId, second.id, 'r4');
      await expect(refused).rejects.toBeInstanceOf(VendorRejectedError);
      await expect(runtime.databases.restore(dbId, second.id, 'r5')).rejects.toThrow(/its file was altered since it was made \(.*does not decrypt at record \d+ \(the last one read\)/);
      expect(await count()).toBe(10);
      expect((await runtime.databases.observe({ key: 'db', externalId: dbId }))?.status).toBe('available');

      // Had the file changed after that first pass, pg_restore is stopped mid-stream and its transaction rolls back:
      // on a record that does not decrypt, and on a checksum that does not match once every tag has.
      const lease = await acquireLocalHost(dataDir);
      try {
        const record = lease.host.state.current.databases.find((d) => d.id === dbId)!;
        await expect(restoreDatabase(lease.host.cluster(record), record.database, secondFile, store.secrets, second.checksum ?? '')).rejects.toThrow(
          /pg_restore was stopped: its input failed: .*does not decrypt at record/,
        );
        expect(await count()).toBe(10);
        const wrongChecksum = `sha256:${'0'.repeat(64)}`;
        await expect(restoreDatabase(lease.host.cluster(record), record.database, file, store.secrets, wrongChecksum)).rejects.toThrow(
          /pg_restore was stopped: its input failed: .*no longer matches its checksum/,
        );
        expect(await count()).toBe(10);
      } finally {
        await lease.release();
      }
      await runtime.databases.delete(dbId);
    } finally {
      await runtime.close();
      await cloud.close();
    }
  }, 240_000);
});

async function backUp(runtime: RuntimeDriver, dbId: string, key: string): Promise<BackupObserved> {
  const started = await runtime.databases.createBackup(dbId, key);
  const done = await waitUntil(() => runtime.databases.observeBackup({ key, externalId: started.id }), (b) => b?.status === 'completed' || b?.status === 'failed', 60_000, `backup ${key}`);
  expect(done?.message ?? null).toBeNull();
  return done!;
}
