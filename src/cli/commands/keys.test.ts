/**
 * @module Tests of `cairn keys rotate` and `cairn keys rotate-signing` through the real
 * executable: secrets and sealed backups stay readable under the new master key, the operator is told what changed,
 * and nobody is signed out by a signing-key rotation.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { decodeProtectedHeader } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../../../test/support/cairn-process.js';
import { AuthService } from '../../auth/auth-service.js';
import { readKeyringFile } from '../../secrets/keyring-file.js';
import { masterKeyId } from '../../secrets/master-key.js';
import { sealedBackupsDir, sealedFileKeyIds } from '../../secrets/sealed-files.js';
import { SealingStream, UnsealingStream } from '../../secrets/sealed-stream.js';
import { Store } from '../../store/store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-keys-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function withStore<T>(work: (store: Store) => T, env: NodeJS.ProcessEnv = {}): T {
  const store = Store.open(dir, { env });
  try {
    return work(store);
  } finally {
    store.close();
  }
}

async function withStoreAsync<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const store = Store.open(dir, { env: {} });
  try {
    return await work(store);
  } finally {
    store.close();
  }
}

const noMasterKeyEnv = { CAIRN_MASTER_KEY: undefined };

describe('cairn keys rotate', () => {
  it('re-encrypts every secret under a new key in the key file and drops the old one', async () => {
    const oldKey = withStore((store) => {
      for (const name of ['a', 'b', 'c']) store.secrets.put('default', 'database-password', name, `value-${name}`);
      return store.secrets.describeMasterKey().keyId;
    });
    const result = await runCairn(['keys', 'rotate', '--data-dir', dir], { env: noMasterKeyEnv });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [newKey] = readKeyringFile(join(dir, 'master.key'))!.map((k) => k.id);
    expect(newKey).not.toBe(oldKey);
    expect(result.stdout).toBe(`re-encrypted 3 secrets under the new master key ${newKey} (key file ${join(dir, 'master.key')}); removed the old key ${oldKey} from it\n`);
    expect(readKeyringFile(join(dir, 'master.key'))).toHaveLength(1);
    withStore((store) => {
      for (const name of ['a', 'b', 'c']) expect(store.secrets.get('default', 'database-password', name)).toBe(`value-${name}`);
    });
  });

  it('re-wraps the data keys of sealed backups, which then open without the old key', async () => {
    const plaintext = randomBytes(100_000);
    const file = join(sealedBackupsDir(dir), 'backup-1.dump');
    const oldKey = await withStoreAsync(async (store) => {
      store.secrets.put('default', 'database-password', 'a', 'value-a');
      mkdirSync(sealedBackupsDir(dir), { recursive: true });
      await pipeline(Readable.from([plaintext]), new SealingStream(store.secrets), createWriteStream(file));
      return store.secrets.describeMasterKey().keyId;
    });
    const result = await runCairn(['keys', 'rotate', '--data-dir', dir], { env: noMasterKeyEnv });
    expect(result.code).toBe(0);
    const [newKey] = readKeyringFile(join(dir, 'master.key'))!.map((k) => k.id);
    expect(result.stdout).toBe(
      `re-encrypted 1 secret and re-wrapped the data key of 1 sealed backup under the new master key ${newKey} (key file ${join(dir, 'master.key')}); removed the old key ${oldKey} from it\n`,
    );
    expect(sealedFileKeyIds(file)).toEqual([newKey]);
    const opened = await withStoreAsync(async (store) => {
      const out: Buffer[] = [];
      await pipeline(createReadStream(file), new UnsealingStream(store.secrets, file), async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) out.push(chunk);
      });
      return Buffer.concat(out);
    });
    expect(opened.equals(plaintext)).toBe(true);
  });

  it('with CAIRN_MASTER_KEY=new,old re-encrypts under the new key and says the old one can go', async () => {
    const [oldKey, newKey] = [randomBytes(32).toString('base64'), randomBytes(32).toString('hex')];
    withStore((store) => store.secrets.put('default', 'provider-credentials', 'aws', '{"token":"t"}'), { CAIRN_MASTER_KEY: oldKey });
    const result = await runCairn(['keys', 'rotate', '--data-dir', dir], { env: { CAIRN_MASTER_KEY: `${newKey},${oldKey}` } });
    expect(result.code).toBe(0);
    const [newId, oldId] = [masterKeyId(Buffer.from(newKey, 'hex')), masterKeyId(Buffer.from(oldKey, 'base64'))];
    expect(result.stdout).toBe(
      `re-encrypted 1 secret under master key ${newId}, the first key of CAIRN_MASTER_KEY\nno secret needs ${oldId} any more: you can drop it from CAIRN_MASTER_KEY\n`,
    );
    expect(withStore((store) => store.secrets.get('default', 'provider-credentials', 'aws'), { CAIRN_MASTER_KEY: newKey })).toBe('{"token":"t"}');
  });

  it('says exactly what is wrong with a bad CAIRN_MASTER_KEY, without a stack trace', async () => {
    const result = await runCairn(['keys', 'rotate', '--data-dir', dir], { env: { CAIRN_MASTER_KEY: randomBytes(16).toString('base64') } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: CAIRN_MASTER_KEY decodes from base64 to 16 bytes; a key must be exactly 32 bytes (64 hex digits or 44 base64 characters); make one with: openssl rand -base64 32\n',
    );
  });
});

describe('cairn keys rotate-signing', () => {
  it('signs new tokens with a new key while tokens signed before keep working', async () => {
    const password = 'correct horse battery';
    const before = await withStoreAsync(async (store) => {
      const auth = await AuthService.open(store);
      await auth.addUser({ email: 'ada@example.com', password, role: 'owner' });
      return auth.login('ada@example.com', password, '127.0.0.1');
    });
    const oldKid = decodeProtectedHeader(before.access_token).kid;
    const result = await runCairn(['keys', 'rotate-signing', '--data-dir', dir], { env: noMasterKeyEnv });
    expect(result.code).toBe(0);
    const newKid = /signed with key (\S+)/.exec(result.stdout)?.[1];
    expect(newKid).toBeDefined();
    expect(newKid).not.toBe(oldKid);
    expect(result.stdout).toContain(`the previous key ${oldKid} still verifies the tokens it signed`);
    await withStoreAsync(async (store) => {
      const auth = await AuthService.open(store);
      await expect(auth.authenticate(`Bearer ${before.access_token}`)).resolves.toMatchObject({ role: 'owner' });
      const after = await auth.refresh(before.refresh_token);
      expect(decodeProtectedHeader(after.access_token).kid).toBe(newKid);
    });
  });
});
