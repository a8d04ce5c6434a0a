/** @module Tests of where master keys come from: CAIRN_MASTER_KEY parsing, the key file, its generation. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readKeyringFile, writeKeyringFile } from './keyring-file.js';
import { describeMasterKey, loadKeyring } from './keyring.js';
import { generateMasterKey, MasterKeyError, masterKeyId, parseMasterKeyList } from './master-key.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-keyring-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('CAIRN_MASTER_KEY', () => {
  const key = randomBytes(32);

  it('takes base64, base64url and hex, the first key of a list being active', () => {
    const old = randomBytes(32);
    const keys = parseMasterKeyList(` ${key.toString('base64')} , ${old.toString('hex')},${old.toString('base64url')}`);
    expect(keys.map((k) => k.id)).toEqual([masterKeyId(key), masterKeyId(old)]);
    expect(keys[0]?.key.equals(key)).toBe(true);
  });

  it('says exactly what is wrong, without echoing the key', () => {
    const short = randomBytes(24).toString('base64');
    expect(() => parseMasterKeyList(short)).toThrow('CAIRN_MASTER_KEY decodes from base64 to 24 bytes; a key must be exactly 32 bytes');
    expect(() => parseMasterKeyList('ab'.repeat(20))).toThrow('CAIRN_MASTER_KEY looks like hex but has 40 digits; a key is 32 bytes, which is 64 hex digits');
    expect(() => parseMasterKeyList(`${key.toString('base64')},`)).toThrow('CAIRN_MASTER_KEY entry 2 of 2 is empty (a stray comma?)');
    expect(() => parseMasterKeyList('  ')).toThrow('CAIRN_MASTER_KEY is set but empty');
    try {
      parseMasterKeyList(`${key.toString('base64')},not a key!`);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(MasterKeyError);
      expect((error as Error).message).toContain('entry 2 of 2 is neither hex nor base64');
      expect((error as Error).message).not.toContain('not a key');
    }
  });

  it('wins over the key file, which then only opens older values', () => {
    const fileKey = generateMasterKey();
    writeKeyringFile(join(dir, 'master.key'), [fileKey]);
    const loaded = loadKeyring(dir, { CAIRN_MASTER_KEY: key.toString('hex') });
    expect(loaded.source).toBe('env');
    expect(loaded.keyring.active.id).toBe(masterKeyId(key));
    expect(loaded.keyring.keys.map((k) => k.id)).toEqual([masterKeyId(key), fileKey.id]);
    expect(describeMasterKey(dir, { CAIRN_MASTER_KEY: key.toString('hex') })).toEqual({
      source: 'env',
      keyId: masterKeyId(key),
      keyIds: [masterKeyId(key), fileKey.id],
    });
  });
});

describe('the key file', () => {
  it('is generated on first use with mode 0600, then read back', () => {
    const first = describeMasterKey(dir, {});
    expect(first.source).toBe('generated');
    expect(first.path).toBe(join(dir, 'master.key'));
    expect(statSync(join(dir, 'master.key')).mode & 0o777).toBe(0o600);
    const again = describeMasterKey(dir, {});
    expect(again).toEqual({ ...first, source: 'file' });
    expect(readdirSync(dir)).toEqual(['master.key']);
  });

  it('is replaced atomically, leaving no temporary files', () => {
    const path = join(dir, 'master.key');
    const [a, b] = [generateMasterKey(), generateMasterKey()];
    writeKeyringFile(path, [a]);
    writeKeyringFile(path, [b, a]);
    expect(readKeyringFile(path)?.map((k) => k.id)).toEqual([b.id, a.id]);
    expect(readdirSync(dir)).toEqual(['master.key']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('refuses a damaged file instead of generating a new key over it', () => {
    const path = join(dir, 'master.key');
    writeFileSync(path, '{"format":1,"keys":[{"id":"0000000000000000","key":"' + randomBytes(32).toString('base64') + '"}]}');
    expect(() => loadKeyring(dir, {})).toThrow(/key 1's id does not match the key \(was the file edited\?\)/);
    writeFileSync(path, 'garbage');
    expect(() => loadKeyring(dir, {})).toThrow(`${path} is not a cairn master key file (it is not JSON)`);
    expect(readFileSync(path, 'utf8')).toBe('garbage');
  });

  it('warns when others can read it', () => {
    const path = join(dir, 'master.key');
    const key = Buffer.alloc(32, 7);
    writeFileSync(path, JSON.stringify({ format: 1, keys: [{ id: masterKeyId(key), key: key.toString('base64') }] }), { mode: 0o644 });
    expect(describeMasterKey(dir, {}).warning).toBe(`${path} has mode 644; only its owner should read it (chmod 600 ${path})`);
  });
});
