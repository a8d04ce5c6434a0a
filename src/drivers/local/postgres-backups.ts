/**
 * @module Backups of a PostgreSQL database with pg_dump in custom format, streamed into a file
 * in the data dir while its SHA-256 is computed, and restores with pg_restore (one transaction:
 * all or nothing) from a file whose SHA-256 still matches the one recorded — a backup that
 * changed since is refused, never restored.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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

export interface DumpResult {
  sizeBytes: number;
  checksum: string;
}

/** Dumps `database` into `file` (written under a temporary name, renamed once complete). */
export async function dumpDatabase(cluster: PostgresCluster, database: string, file: string): Promise<DumpResult> {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const partial = `${file}.partial`;
  const hashing = new Hashing();
  const written = pipeline(hashing, createWriteStream(partial, { mode: 0o600 }));
  try {
    await runProgram(cluster.program('pg_dump'), ['--format=custom', ...cluster.connectionArgs(database)], { runAs: cluster.runAs, stdout: hashing, timeoutMs: 6 * 60 * 60_000 });
    await written;
  } catch (error) {
    hashing.destroy();
    await rm(partial, { force: true });
    throw error;
  }
  await rename(partial, file);
  return { sizeBytes: statSync(file).size, checksum: hashing.digest() };
}

/** The SHA-256 of a file, as `sha256:<hex>`. */
export async function fileChecksum(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

/** Replaces `database`'s contents with the dump in `file`, in one transaction. */
export async function restoreDatabase(cluster: PostgresCluster, database: string, file: string): Promise<void> {
  await runProgram(cluster.program('pg_restore'), ['--clean', '--if-exists', '--single-transaction', '--exit-on-error', ...cluster.connectionArgs(database)], {
    runAs: cluster.runAs,
    stdin: createReadStream(file),
    timeoutMs: 6 * 60 * 60_000,
  });
}
