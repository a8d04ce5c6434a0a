/**
 * @module Tests of reading backup files for a restore, without PostgreSQL: a sealed backup yields
 * its plaintext only while its tags and its plaintext checksum match; an old plain backup is
 * still read (checked by checksum); a stream that fails to verify withholds its last chunk; and a
 * program whose input fails is stopped rather than seeing a clean end of input.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { SecretIntegrityError, UnknownMasterKeyError } from '../../secrets/envelope.js';
import { generateMasterKey } from '../../secrets/master-key.js';
import { keyringDataKeys, SEALED_HEADER_BYTES, SealingStream } from '../../secrets/sealed-stream.js';
import { isSealedBackup, verifiedPlaintext, verifyBackup } from './postgres-backups.js';
import { runProgram } from './run-program.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-backup-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const master = generateMasterKey();
const keys = keyringDataKeys({ active: master, keys: [master] });
const checksumOf = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

async function sealedFile(name: string, plaintext: Buffer): Promise<string> {
  const file = join(dir, name);
  const out: Buffer[] = [];
  await pipeline(Readable.from([plaintext]), new SealingStream(keys), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) out.push(chunk);
  });
  writeFileSync(file, Buffer.concat(out));
  return file;
}

/** What the stream emitted, and the error it ended with (if any). */
async function drain(stream: Readable): Promise<{ bytes: Buffer; error?: Error }> {
  const out: Buffer[] = [];
  try {
    for await (const chunk of stream) out.push(chunk as Buffer);
    return { bytes: Buffer.concat(out) };
  } catch (error) {
    return { bytes: Buffer.concat(out), error: error as Error };
  }
}

describe('backup files read for a restore', () => {
  const plaintext = Buffer.concat([Buffer.from('PGDMP'), randomBytes(300_000)]);

  it('decrypts a sealed backup whose tags and checksum match', async () => {
    const file = await sealedFile('good.dump', plaintext);
    expect(isSealedBackup(file)).toBe(true);
    const { bytes, error } = await drain(verifiedPlaintext(file, keys, checksumOf(plaintext)));
    expect(error).toBeUndefined();
    expect(bytes.equals(plaintext)).toBe(true);
    await expect(verifyBackup(file, keys, checksumOf(plaintext))).resolves.toBeUndefined();
  });

  it('refuses a sealed backup whose plaintext checksum differs, withholding the last chunk', async () => {
    const file = await sealedFile('other-checksum.dump', plaintext);
    const { bytes, error } = await drain(verifiedPlaintext(file, keys, checksumOf(Buffer.from('something else'))));
    expect(error?.message).toMatch(/no longer matches its checksum/);
    expect(error).toBeInstanceOf(SecretIntegrityError);
    expect(bytes.length).toBeLessThan(plaintext.length);
    expect(plaintext.subarray(0, bytes.length).equals(bytes)).toBe(true);
  });

  it('refuses a sealed backup with a flipped byte or cut short, before emitting what follows', async () => {
    const file = await sealedFile('tampered.dump', plaintext);
    const bytes = readFileSync(file);
    bytes[SEALED_HEADER_BYTES + 200_000]! ^= 1;
    writeFileSync(file, bytes);
    const flipped = await drain(verifiedPlaintext(file, keys, checksumOf(plaintext)));
    expect(flipped.error).toBeInstanceOf(SecretIntegrityError);
    expect(flipped.error?.message).toMatch(/does not decrypt at record 3/);
    expect(flipped.bytes.length).toBeLessThanOrEqual(3 * 64 * 1024);
    const cut = await sealedFile('cut.dump', plaintext);
    writeFileSync(cut, readFileSync(cut).subarray(0, SEALED_HEADER_BYTES + 2 * (64 * 1024 + 16)));
    await expect(verifyBackup(cut, keys, checksumOf(plaintext))).rejects.toThrow(/does not decrypt at record 1 \(the last one read\)/);
  });

  it('says which master key is missing when the key ring cannot open it', async () => {
    const file = await sealedFile('foreign.dump', plaintext);
    const other = generateMasterKey();
    await expect(verifyBackup(file, keyringDataKeys({ active: other, keys: [other] }), checksumOf(plaintext))).rejects.toThrow(UnknownMasterKeyError);
  });

  it('still reads an old plain backup, checked by its checksum', async () => {
    const file = join(dir, 'plain.dump');
    writeFileSync(file, plaintext);
    expect(isSealedBackup(file)).toBe(false);
    const good = await drain(verifiedPlaintext(file, keys, checksumOf(plaintext)));
    expect(good.error).toBeUndefined();
    expect(good.bytes.equals(plaintext)).toBe(true);
    writeFileSync(file, Buffer.concat([plaintext, Buffer.from('tampered')]));
    const bad = await drain(verifiedPlaintext(file, keys, checksumOf(plaintext)));
    expect(bad.error?.message).toMatch(/no longer matches its checksum/);
    expect(bad.bytes.length).toBeLessThan(plaintext.length);
  });
});

describe('a program whose input fails', () => {
  it('is stopped before it sees the end of its input, and the failure is the reason given', async () => {
    const marker = join(dir, 'finished');
    const failing = new Readable({ read() {} });
    failing.push(Buffer.from('the start of a dump\n'));
    setTimeout(() => failing.destroy(new Error('record 7 does not decrypt')), 100);
    await expect(runProgram('/bin/sh', ['-c', `cat >/dev/null && touch ${marker}`], { stdin: failing, timeoutMs: 10_000 })).rejects.toThrow(
      'sh was stopped: its input failed: record 7 does not decrypt',
    );
    expect(existsSync(marker)).toBe(false);
  });
});
