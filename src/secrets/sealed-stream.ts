/**
 * @module Streams sealed at rest (database backups): a fresh random 256-bit data key encrypts the
 * stream with AES-256-GCM in chunks (STREAM, as age does), and the master key wraps the data key
 * in the file's header, so a multi-GB stream is verified chunk by chunk as it is read.
 *
 * Format (all integers big-endian):
 *
 *     header   magic "cairn-sealed-v1\n" (16 bytes) | chunk size u32 (4)
 *              | key slot 0 | key slot 1                 (each: master key id, 16 ASCII bytes,
 *                                                          zeros when empty | wrapped data key, 60)
 *     records  AES-256-GCM(data key, nonce, chunk, aad = magic | chunk size) | tag (16)
 *
 * Every chunk but the last holds exactly `chunk size` bytes; the last holds 0 to `chunk size`
 * (an empty stream is one empty final chunk). The 12-byte nonce is the record's counter (11
 * bytes) and a final flag (1 byte: 1 on the last record, else 0), so a reordered, dropped,
 * duplicated or truncated record fails its tag. Two key slots let `cairn keys rotate` re-wrap the
 * data key in place without a window in which no slot opens (see ./sealed-files.ts); the data
 * key never changes, so the records are never rewritten.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { SecretIntegrityError, UnknownMasterKeyError, unwrapDataKey, wrapDataKey, WRAPPED_DATA_KEY_BYTES, type Keyring } from './envelope.js';

export const SEALED_MAGIC = Buffer.from('cairn-sealed-v1\n', 'ascii');
export const DEFAULT_CHUNK_BYTES = 64 * 1024;
/** The largest chunk size a header may claim (a tampered size must not make us buffer gigabytes). */
const MAX_CHUNK_BYTES = 16 * 1024 * 1024;
const KEY_ID_BYTES = 16;
const DATA_KEY_BYTES = 32;
const TAG_BYTES = 16;
const NONCE_BYTES = 12;
export const KEY_SLOT_BYTES = KEY_ID_BYTES + WRAPPED_DATA_KEY_BYTES;
/** Where the key slots start: after the magic and the chunk size, which are also every record's aad. */
export const KEY_SLOTS_OFFSET = SEALED_MAGIC.length + 4;
export const SEALED_HEADER_BYTES = KEY_SLOTS_OFFSET + 2 * KEY_SLOT_BYTES;

/** A data key wrapped under a master key. */
export interface WrappedDataKey {
  keyId: string;
  wrapped: Buffer;
}

/** What sealing a stream needs of the master keys, and nothing more. */
export interface DataKeyWrapper {
  /** Wraps `dataKey` under the active master key. */
  wrapDataKey(dataKey: Buffer): WrappedDataKey;
  /** Unwraps a data key; throws UnknownMasterKeyError or SecretIntegrityError when it cannot. */
  unwrapDataKey(wrapped: WrappedDataKey): Buffer;
}

/** A sealed stream that does not open: altered, reordered, truncated, or not sealed at all. */
export class SealedStreamError extends SecretIntegrityError {
  override readonly name = 'SealedStreamError';
}

/** Wraps under the keyring's active key, unwraps with any of its keys. */
export function keyringDataKeys(keyring: Keyring): DataKeyWrapper {
  return {
    wrapDataKey: (dataKey) => ({ keyId: keyring.active.id, wrapped: Buffer.from(wrapDataKey(keyring.active, dataKey), 'base64url') }),
    unwrapDataKey: ({ keyId, wrapped }) => unwrapDataKey(keyring, keyId, wrapped),
  };
}

/** Whether these first bytes of a file start a sealed stream. */
export function startsSealed(firstBytes: Buffer): boolean {
  return firstBytes.length >= SEALED_MAGIC.length && firstBytes.subarray(0, SEALED_MAGIC.length).equals(SEALED_MAGIC);
}

/** The key slots of a header: the non-empty ones, by index. */
export function readKeySlots(header: Buffer): Array<{ slot: number } & WrappedDataKey> {
  const slots: Array<{ slot: number } & WrappedDataKey> = [];
  for (const slot of [0, 1]) {
    const at = KEY_SLOTS_OFFSET + slot * KEY_SLOT_BYTES;
    const id = header.subarray(at, at + KEY_ID_BYTES);
    if (id.every((b) => b === 0)) continue;
    slots.push({ slot, keyId: id.toString('latin1'), wrapped: Buffer.from(header.subarray(at + KEY_ID_BYTES, at + KEY_SLOT_BYTES)) });
  }
  return slots;
}

/** One key slot's bytes for a wrapped data key. */
export function keySlotBytes(key: WrappedDataKey): Buffer {
  if (!/^[\x21-\x7e]{16}$/.test(key.keyId)) throw new SealedStreamError(`a master key id must be 16 printable ASCII characters to fit a sealed header, not "${key.keyId}"`);
  if (key.wrapped.length !== WRAPPED_DATA_KEY_BYTES) throw new SealedStreamError(`a wrapped data key is ${WRAPPED_DATA_KEY_BYTES} bytes, not ${key.wrapped.length}`);
  return Buffer.concat([Buffer.from(key.keyId, 'latin1'), key.wrapped]);
}

/**
 * The data key of a header, from the first slot that opens. A slot under a key the keyring does
 * not hold, or one torn by a crash during a rotation, is passed over while another opens.
 */
export function openKeySlots(header: Buffer, keys: DataKeyWrapper): { slot: number; keyId: string; dataKey: Buffer } {
  const slots = readKeySlots(header);
  if (slots.length === 0) throw new SealedStreamError('the sealed header has no wrapped data key (both key slots are empty)');
  let unknownKey: UnknownMasterKeyError | undefined;
  let altered: SecretIntegrityError | undefined;
  for (const slot of slots) {
    try {
      return { slot: slot.slot, keyId: slot.keyId, dataKey: keys.unwrapDataKey(slot) };
    } catch (error) {
      if (error instanceof UnknownMasterKeyError) unknownKey ??= error;
      else if (error instanceof SecretIntegrityError) altered ??= error;
      else throw error;
    }
  }
  // A missing key is what the operator can fix (restore it); say that before an altered slot.
  throw unknownKey ?? altered;
}

function chunkAad(chunkBytes: number): Buffer {
  const aad = Buffer.alloc(SEALED_MAGIC.length + 4);
  SEALED_MAGIC.copy(aad);
  aad.writeUInt32BE(chunkBytes, SEALED_MAGIC.length);
  return aad;
}

function nonce(counter: number, final: boolean): Buffer {
  const iv = Buffer.alloc(NONCE_BYTES);
  iv.writeBigUInt64BE(BigInt(counter), 3);
  iv[NONCE_BYTES - 1] = final ? 1 : 0;
  return iv;
}

/** Bytes queued until a whole record can be taken off the front, without copying on every write. */
class ByteQueue {
  private parts: Buffer[] = [];
  length = 0;
  push(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.parts.push(bytes);
    this.length += bytes.length;
  }
  /** The first `n` queued bytes (n ≤ length), copied only when they span several writes. */
  take(n: number): Buffer {
    this.length -= n;
    const first = this.parts[0];
    if (first && first.length >= n) {
      if (first.length === n) this.parts.shift();
      else this.parts[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const taken = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const part = this.parts[0]!;
      const used = Math.min(part.length, n - filled);
      part.copy(taken, filled, 0, used);
      filled += used;
      if (used === part.length) this.parts.shift();
      else this.parts[0] = part.subarray(used);
    }
    return taken;
  }
}

/** Encrypts what is written to it into the sealed format under a new data key wrapped by `keys`. */
export class SealingStream extends Transform {
  private readonly dataKey = randomBytes(DATA_KEY_BYTES);
  private readonly aad: Buffer;
  private readonly pending = new ByteQueue();
  private counter = 0;

  constructor(keys: DataKeyWrapper, private readonly chunkBytes = DEFAULT_CHUNK_BYTES) {
    super();
    if (!Number.isInteger(chunkBytes) || chunkBytes < 1 || chunkBytes > MAX_CHUNK_BYTES) throw new RangeError(`chunk size must be 1 to ${MAX_CHUNK_BYTES} bytes, not ${chunkBytes}`);
    this.aad = chunkAad(chunkBytes);
    const slot0 = keySlotBytes(keys.wrapDataKey(this.dataKey));
    this.push(Buffer.concat([this.aad, slot0, Buffer.alloc(KEY_SLOT_BYTES)]));
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.pending.push(chunk);
    // Keep at least one whole chunk back: only at the end is it known which record is the last.
    while (this.pending.length > this.chunkBytes) this.push(this.seal(this.pending.take(this.chunkBytes), false));
    done();
  }

  override _flush(done: TransformCallback): void {
    this.push(this.seal(this.pending.take(this.pending.length), true));
    this.dataKey.fill(0);
    done();
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    this.dataKey.fill(0);
    done(error);
  }

  private seal(plaintext: Buffer, final: boolean): Buffer {
    const cipher = createCipheriv('aes-256-gcm', this.dataKey, nonce(this.counter++, final), { authTagLength: TAG_BYTES });
    cipher.setAAD(this.aad);
    return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  }
}

/**
 * Decrypts a sealed stream written to it, emitting only chunks whose tags verified; errors (and
 * emits nothing more) on the first record that does not, and at the end when the final record is
 * missing. `description` names the stream in errors (e.g. the file).
 */
export class UnsealingStream extends Transform {
  private readonly pending = new ByteQueue();
  private header: { dataKey: Buffer; aad: Buffer; recordBytes: number } | undefined;
  private counter = 0;

  constructor(private readonly keys: DataKeyWrapper, private readonly description = 'the sealed stream') {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.pending.push(chunk);
    try {
      if (!this.header) {
        if (this.pending.length < SEALED_HEADER_BYTES) return done();
        this.header = this.openHeader(this.pending.take(SEALED_HEADER_BYTES));
      }
      // More than one record queued: the first is not the last.
      while (this.pending.length > this.header.recordBytes) this.push(this.open(this.pending.take(this.header.recordBytes), false));
      done();
    } catch (error) {
      done(error as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      if (!this.header) throw new SealedStreamError(`${this.description} is truncated: it ends inside its header (${this.pending.length} of ${SEALED_HEADER_BYTES} bytes)`);
      if (this.pending.length < TAG_BYTES) throw new SealedStreamError(`${this.description} is truncated: its final record is missing`);
      this.push(this.open(this.pending.take(this.pending.length), true));
      this.header.dataKey.fill(0);
      done();
    } catch (error) {
      done(error as Error);
    }
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    this.header?.dataKey.fill(0);
    done(error);
  }

  private openHeader(header: Buffer): { dataKey: Buffer; aad: Buffer; recordBytes: number } {
    if (!startsSealed(header)) throw new SealedStreamError(`${this.description} is not sealed (it does not start with the magic "cairn-sealed-v1")`);
    const chunkBytes = header.readUInt32BE(SEALED_MAGIC.length);
    if (chunkBytes < 1 || chunkBytes > MAX_CHUNK_BYTES) throw new SealedStreamError(`${this.description} has an impossible chunk size (${chunkBytes} bytes); its header was altered`);
    let dataKey: Buffer;
    try {
      dataKey = openKeySlots(header, this.keys).dataKey;
    } catch (error) {
      if (error instanceof UnknownMasterKeyError) throw error;
      throw new SealedStreamError(`${this.description}: its data key does not open (${(error as Error).message})`);
    }
    return { dataKey, aad: chunkAad(chunkBytes), recordBytes: chunkBytes + TAG_BYTES };
  }

  private open(record: Buffer, final: boolean): Buffer {
    const header = this.header!;
    const index = this.counter++;
    try {
      const decipher = createDecipheriv('aes-256-gcm', header.dataKey, nonce(index, final), { authTagLength: TAG_BYTES });
      decipher.setAAD(header.aad);
      decipher.setAuthTag(record.subarray(record.length - TAG_BYTES));
      return Buffer.concat([decipher.update(record.subarray(0, record.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new SealedStreamError(
        `${this.description} does not decrypt at record ${index}${final ? ' (the last one read)' : ''}: it was altered, reordered or truncated`,
      );
    }
  }
}
