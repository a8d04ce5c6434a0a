/**
 * @module Tests that `cairn keys rotate` (Store.rotateMasterKey) re-wraps the data keys of sealed
 * backup files: after it, the old master key is gone and the backups still open; a crash half way
 * through a header rewrite leaves the file readable; a backup that does not open stops the
 * rotation before anything changes; a lost key file is not silently replaced while backups need it.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { wrapDataKey } from '../secrets/envelope.js';
import { readKeyringFile } from '../secrets/keyring-file.js';
import { generateMasterKey, masterKeyId } from '../secrets/master-key.js';
import { sealedBackupsDir, sealedFileKeyIds } from '../secrets/sealed-files.js';
import { KEY_SLOT_BYTES, KEY_SLOTS_OFFSET, keySlotBytes, SealingStream, UnsealingStream, type DataKeyWrapper } from '../secrets/sealed-stream.js';
import { Store } from './store.js';

let dir: string;
let stores: Store[];
const open = (env: NodeJS.ProcessEnv = {}): Store => {
  const store = Store.open(dir, { env });
  stores.push(store);
  return store;
};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-sealed-rotation-'));
  stores = [];
});
afterEach(() => {
  for (const store of stores) store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function collect(stream: SealingStream | UnsealingStream, input: Buffer): Promise<Buffer> {
  const out: Buffer[] = [];
  await pipeline(Readable.from([input]), stream, async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) out.push(chunk);
  });
  return Buffer.concat(out);
}

/** Writes a sealed backup under the store's active key, as the local vendor does. */
async function writeBackup(keys: DataKeyWrapper, name: string, plaintext: Buffer): Promise<string> {
  const backups = sealedBackupsDir(dir);
  mkdirSync(backups, { recursive: true });
  const file = join(backups, name);
  writeFileSync(file, await collect(new SealingStream(keys), plaintext));
  return file;
}

const readBack = (keys: DataKeyWrapper, file: string): Promise<Buffer> => collect(new UnsealingStream(keys, file), readFileSync(file));

describe('master key rotation and sealed backups', () => {
  it('re-wraps every backup under the new key; the old key is dropped and the backups still open', async () => {
    const store = open();
    store.secrets.put('default', 'database-password', 'db-1', 'v');
    const old = store.secrets.describeMasterKey().keyId;
    const plaintexts = [randomBytes(200_000), Buffer.alloc(0)];
    const files = [await writeBackup(store.secrets, 'backup-a.dump', plaintexts[0]!), await writeBackup(store.secrets, 'backup-b.dump.partial', plaintexts[1]!)];
    const bodies = files.map((f) => readFileSync(f).subarray(KEY_SLOTS_OFFSET + 2 * KEY_SLOT_BYTES));

    const result = open().rotateMasterKey();

    expect(result).toMatchObject({ source: 'file', reencrypted: 1, rewrappedBackups: 2, droppedKeyIds: [old] });
    expect(readKeyringFile(join(dir, 'master.key'))?.map((k) => k.id)).toEqual([result.activeKeyId]);
    for (const [i, file] of files.entries()) {
      expect(sealedFileKeyIds(file)).toEqual([result.activeKeyId]);
      expect(readFileSync(file).subarray(KEY_SLOTS_OFFSET + 2 * KEY_SLOT_BYTES).equals(bodies[i]!)).toBe(true); // only the header changed
      expect((await readBack(open().secrets, file)).equals(plaintexts[i]!)).toBe(true);
    }
    // The process that sealed them, holding the old keyring, reloads and still opens them.
    expect((await readBack(store.secrets, files[0]!)).equals(plaintexts[0]!)).toBe(true);
    expect(open().rotateMasterKey().rewrappedBackups).toBe(2);
  });

  it('keeps a backup readable when a rotation crashed with the new slot written but the old one not yet cleared', async () => {
    const store = open();
    const plaintext = randomBytes(5000);
    const file = await writeBackup(store.secrets, 'backup-c.dump', plaintext);
    const old = store.secrets.describeMasterKey().keyId;
    const next = generateMasterKey();
    // Act out the crash: slot 1 holds a torn wrapping under the new key, slot 0 still the old one.
    const bytes = readFileSync(file);
    const slot = keySlotBytes({ keyId: next.id, wrapped: Buffer.from(wrapDataKey(next, randomBytes(32)), 'base64url') });
    slot[slot.length - 1]! ^= 1;
    slot.copy(bytes, KEY_SLOTS_OFFSET + KEY_SLOT_BYTES);
    writeFileSync(file, bytes);
    expect(sealedFileKeyIds(file)).toEqual([old, next.id]);
    expect((await readBack(open().secrets, file)).equals(plaintext)).toBe(true);
    // The next rotation cleans it up.
    const result = open().rotateMasterKey();
    expect(sealedFileKeyIds(file)).toEqual([result.activeKeyId]);
    expect((await readBack(open().secrets, file)).equals(plaintext)).toBe(true);
  });

  it('stops before changing anything when a backup’s data key does not open', async () => {
    const store = open();
    store.secrets.put('default', 'database-password', 'db-1', 'v');
    const file = await writeBackup(store.secrets, 'backup-d.dump', randomBytes(100));
    const bytes = readFileSync(file);
    bytes[KEY_SLOTS_OFFSET + 16 + 20]! ^= 1; // inside slot 0's wrapped key
    writeFileSync(file, bytes);
    const keysBefore = readFileSync(join(dir, 'master.key'), 'utf8');
    expect(() => open().rotateMasterKey()).toThrow(`the data key of the sealed backup ${file} does not open`);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(readFileSync(join(dir, 'master.key'), 'utf8')).toBe(keysBefore);
    expect(open().secrets.get('default', 'database-password', 'db-1')).toBe('v');
  });

  it('with CAIRN_MASTER_KEY: re-wraps under its first key and lets the old key go', async () => {
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    const before = open({ CAIRN_MASTER_KEY: oldKey.toString('base64') });
    const plaintext = randomBytes(70_000);
    const file = await writeBackup(before.secrets, 'backup-e.dump', plaintext);
    const result = open({ CAIRN_MASTER_KEY: `${newKey.toString('base64')},${oldKey.toString('base64')}` }).rotateMasterKey();
    expect(result).toMatchObject({ rewrappedBackups: 1, removableKeyIds: [masterKeyId(oldKey)] });
    expect((await readBack(open({ CAIRN_MASTER_KEY: newKey.toString('base64') }).secrets, file)).equals(plaintext)).toBe(true);
  });

  it('refuses to generate a new key file while sealed backups need the lost one', async () => {
    const store = open();
    await writeBackup(store.secrets, 'backup-f.dump', randomBytes(10));
    rmSync(join(dir, 'master.key'));
    expect(() => open().secrets.describeMasterKey()).toThrow(/master key file .* is missing/);
  });
});
