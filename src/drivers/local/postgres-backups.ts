/**
 * @module Backups of a PostgreSQL database with pg_dump in custom format, sealed at rest: the
 * dump is streamed through AES-256-GCM in authenticated chunks under a fresh data key wrapped by
 * the master key (see src/secrets/sealed-stream.ts), while the SHA-256 of the plaintext is
 * computed and recorded. A restore decrypts while hashing the plaintext, and refuses — before
 * pg_restore can commit its single transaction — a file whose tags or checksum do not match.
 * Plain backups written before sealing (no sealed magic) are still read, checked by checksum.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, createWriteStream, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline as pipelineWithCallback, Transform, Writable, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SecretIntegrityError } from '../../secrets/envelope.js';
import { SEALED_MAGIC, SealingStream, startsSealed, UnsealingStream, type DataKeyWrapper } from '../../secrets/sealed-stream.js';
import type { PostgresCluster } from './postgres-cluster.js';
import { runProgram } from './run-program.js';

/** Passes bytes through while hashing them. */
class Hashing extends Transform {
  private readonly hash = createHash('sha256');
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    done(null, chunk);
  }
  digest(): string {
    return `sha256:${this.hash.digest('hex')}`;
  }
}

/** A backup whose file no longer holds what was backed up: a tag or the checksum does not match. */
export class BackupIntegrityError extends SecretIntegrityError {
  override readonly name = 'BackupIntegrityError';
}

/**
 * Passes the plaintext through while hashing it, always holding the latest chunk back: only when
 * the whole stream's checksum matches `expected` does the last chunk go out, so a reader (pg_restore)
 * never sees a complete input that does not verify.
 */
class ChecksumGate extends Transform {
  private readonly hash = createHash('sha256');
  private held: Buffer | undefined;

  constructor(private readonly expected: string, private readonly description: string) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    if (this.held) this.push(this.held);
    this.held = chunk;
    done();
  }

  override _flush(done: TransformCallback): void {
    const actual = `sha256:${this.hash.digest('hex')}`;
    if (actual !== this.expected) return done(new BackupIntegrityError(`${this.description} no longer matches its checksum (recorded ${this.expected}, now ${actual})`));
    if (this.held) this.push(this.held);
    done();
  }
}

export interface DumpResult {
  /** The size of the sealed file. */
  sizeBytes: number;
  /** The SHA-256 of the plaintext dump. */
  checksum: string;
}

/**
 * Seals what `write` writes into `file` under a data key `keys` wraps, hashing the plaintext on
 * the way (written under a temporary name, renamed once complete; removed when `write` fails).
 * `write` must end the sink it is given. Host-independent: the local and SSH runtimes share it.
 */
export async function writeSealedBackup(file: string, keys: DataKeyWrapper, write: (sink: Writable) => Promise<void>): Promise<DumpResult> {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const partial = `${file}.partial`;
  const hashing = new Hashing();
  const written = pipeline(hashing, new SealingStream(keys), createWriteStream(partial, { mode: 0o600 }));
  try {
    await write(hashing);
    await written;
  } catch (error) {
    hashing.destroy();
    await written.catch(() => undefined);
    await rm(partial, { force: true });
    throw error;
  }
  await rename(partial, file);
  return { sizeBytes: statSync(file).size, checksum: hashing.digest() };
}

/** Dumps `database` into `file`, sealed under a data key `keys` wraps. */
export async function dumpDatabase(cluster: PostgresCluster, database: string, file: string, keys: DataKeyWrapper): Promise<DumpResult> {
  return writeSealedBackup(file, keys, async (sink) => {
    await runProgram(cluster.program('pg_dump'), ['--format=custom', ...cluster.connectionArgs(database)], { runAs: cluster.runAs, stdout: sink, timeoutMs: 6 * 60 * 60_000 });
  });
}

/** Whether `file` is sealed (else it is a plain backup from before sealing). */
export function isSealedBackup(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const start = Buffer.alloc(SEALED_MAGIC.length);
    return startsSealed(start.subarray(0, readSync(fd, start, 0, start.length, 0)));
  } finally {
    closeSync(fd);
  }
}

/**
 * The plaintext of the backup in `file`, verified as it streams: the stream errors, without
 * emitting its last chunk, when a sealed record does not decrypt or the plaintext's SHA-256 is
 * not `checksum`. Errors that mean the file was altered are BackupIntegrityError.
 */
export function verifiedPlaintext(file: string, keys: DataKeyWrapper, checksum: string): Readable {
  const description = `the backup file ${file}`;
  const gate = new ChecksumGate(checksum, description);
  // Errors reach the caller through `gate`, which the pipeline destroys with the first error of any stage.
  const ignore = (): void => undefined;
  if (isSealedBackup(file)) return pipelineWithCallback(createReadStream(file), new UnsealingStream(keys, description), gate, ignore);
  return pipelineWithCallback(createReadStream(file), gate, ignore);
}

/** Reads the whole backup through verifiedPlaintext; resolves when its tags and checksum match. */
export async function verifyBackup(file: string, keys: DataKeyWrapper, checksum: string): Promise<void> {
  await pipeline(verifiedPlaintext(file, keys, checksum), new Writable({ write: (_chunk, _encoding, done) => done() }));
}

/** Replaces `database`'s contents with the verified plaintext of the dump in `file`, in one transaction. */
export async function restoreDatabase(cluster: PostgresCluster, database: string, file: string, keys: DataKeyWrapper, checksum: string): Promise<void> {
  await runProgram(cluster.program('pg_restore'), ['--clean', '--if-exists', '--single-transaction', '--exit-on-error', ...cluster.connectionArgs(database)], {
    runAs: cluster.runAs,
    stdin: verifiedPlaintext(file, keys, checksum),
    timeoutMs: 6 * 60 * 60_000,
  });
}
