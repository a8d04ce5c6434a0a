/**
 * @module Tests of sealed streams: round trips at the chunk boundaries, and that any altered,
 * truncated, reordered or foreign-keyed stream fails loudly instead of yielding plaintext.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { UnknownMasterKeyError, type Keyring } from './envelope.js';
import { generateMasterKey } from './master-key.js';
import { keyringDataKeys, SEALED_HEADER_BYTES, SealedStreamError, SealingStream, startsSealed, UnsealingStream } from './sealed-stream.js';

const master = generateMasterKey();
const keyring: Keyring = { active: master, keys: [master] };
const keys = keyringDataKeys(keyring);
const CHUNK = 1024;
const RECORD = CHUNK + 16;

/** Runs `input` through `stream` (written in pieces of `piece` bytes) and returns what came out. */
async function through(stream: SealingStream | UnsealingStream, input: Buffer, piece = 700): Promise<Buffer> {
  const out: Buffer[] = [];
  const pieces = Array.from({ length: Math.ceil(input.length / piece) }, (_, i) => input.subarray(i * piece, (i + 1) * piece));
  await pipeline(Readable.from(pieces), stream, async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) out.push(chunk);
  });
  return Buffer.concat(out);
}

const seal = (plaintext: Buffer): Promise<Buffer> => through(new SealingStream(keys, CHUNK), plaintext);
const unseal = (sealed: Buffer, with_ = keys): Promise<Buffer> => through(new UnsealingStream(with_, 'test.dump'), sealed, 333);

describe('sealed streams', () => {
  for (const [label, size] of [
    ['empty', 0],
    ['1 byte', 1],
    ['exactly one chunk', CHUNK],
    ['one chunk and a byte', CHUNK + 1],
    ['many chunks', CHUNK * 7 + 123],
    ['many whole chunks', CHUNK * 5],
  ] as const) {
    it(`round-trips ${label}`, async () => {
      const plaintext = randomBytes(size);
      const sealed = await seal(plaintext);
      expect(startsSealed(sealed)).toBe(true);
      const records = Math.max(1, Math.ceil(size / CHUNK));
      expect(sealed.length).toBe(SEALED_HEADER_BYTES + size + records * 16);
      expect((await unseal(sealed)).equals(plaintext)).toBe(true);
    });
  }

  it('does not hold the plaintext, and seals the same bytes differently each time', async () => {
    const plaintext = Buffer.from('marker-7f3a '.repeat(500));
    const first = await seal(plaintext);
    const second = await seal(plaintext);
    expect(first.includes(Buffer.from('marker-7f3a'))).toBe(false);
    expect(first.subarray(SEALED_HEADER_BYTES).equals(second.subarray(SEALED_HEADER_BYTES))).toBe(false);
  });

  it('fails on a flipped byte anywhere: header, key slot, any record, any tag', async () => {
    const sealed = await seal(randomBytes(CHUNK * 3 + 10));
    const slot0KeyId = 20 + 5;
    const altered0 = Buffer.from(sealed);
    altered0[slot0KeyId]! ^= 0x01;
    await expect(unseal(altered0), 'key id').rejects.toThrow(UnknownMasterKeyError);
    for (const at of [17, 20 + 30, SEALED_HEADER_BYTES, SEALED_HEADER_BYTES + RECORD + 7, SEALED_HEADER_BYTES + RECORD * 2 - 1, sealed.length - 1]) {
      const altered = Buffer.from(sealed);
      altered[at]! ^= 0x01;
      await expect(unseal(altered), `byte ${at}`).rejects.toThrow(SealedStreamError);
    }
  });

  it('fails on a truncated stream, even cut at a record boundary or inside the header', async () => {
    const sealed = await seal(randomBytes(CHUNK * 3));
    for (const length of [sealed.length - 1, SEALED_HEADER_BYTES + RECORD * 2, SEALED_HEADER_BYTES + RECORD, SEALED_HEADER_BYTES + 5, SEALED_HEADER_BYTES, 50]) {
      await expect(unseal(sealed.subarray(0, length)), `cut at ${length}`).rejects.toThrow(/truncated|does not decrypt/);
    }
  });

  it('fails on swapped, dropped or duplicated records', async () => {
    const sealed = await seal(randomBytes(CHUNK * 3 + 10));
    const header = sealed.subarray(0, SEALED_HEADER_BYTES);
    const record = (i: number): Buffer => sealed.subarray(SEALED_HEADER_BYTES + i * RECORD, SEALED_HEADER_BYTES + (i + 1) * RECORD);
    const last = sealed.subarray(SEALED_HEADER_BYTES + 3 * RECORD);
    await expect(unseal(Buffer.concat([header, record(1), record(0), record(2), last]))).rejects.toThrow(/record 0/);
    await expect(unseal(Buffer.concat([header, record(0), record(2), last]))).rejects.toThrow(/record 1/);
    await expect(unseal(Buffer.concat([header, record(0), record(0), record(1), record(2), last]))).rejects.toThrow(/record 1/);
    await expect(unseal(Buffer.concat([header, record(0), record(1), record(2), last, record(2)]))).rejects.toThrow(SealedStreamError);
  });

  it('fails with a key it was not sealed under, or with the header of another stream', async () => {
    const sealed = await seal(randomBytes(100));
    const other = generateMasterKey();
    await expect(unseal(sealed, keyringDataKeys({ active: other, keys: [other] }))).rejects.toThrow(UnknownMasterKeyError);
    const another = await seal(randomBytes(100));
    const mixed = Buffer.concat([another.subarray(0, SEALED_HEADER_BYTES), sealed.subarray(SEALED_HEADER_BYTES)]);
    await expect(unseal(mixed)).rejects.toThrow(/does not decrypt at record 0/);
  });

  it('refuses a stream that is not sealed', async () => {
    await expect(unseal(Buffer.from('PGDMP'.padEnd(400, 'x')))).rejects.toThrow(/not sealed/);
  });
});
