/**
 * @module Benchmark: sealing and unsealing a 100 MB stream (src/secrets/sealed-stream.ts, 64 KiB
 * AES-256-GCM chunks) — in memory, each direction alone, and a round trip through a file on disk
 * (seal into the file, then unseal it while hashing the plaintext, as a restore does).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { generateMasterKey } from '../src/secrets/master-key.js';
import { keyringDataKeys, SealingStream, UnsealingStream } from '../src/secrets/sealed-stream.js';
import type { Benchmark } from './support/benchmark.js';
import { seconds } from './support/figures.js';

const TOTAL_BYTES = 100 * 1024 * 1024;
/** What pg_dump hands over per read of its stdout. */
const PIECE_BYTES = 64 * 1024;

export interface SealResult {
  megabytes: number;
  sealMs: number;
  unsealMs: number;
  fileRoundTripMs: number;
  /** The same round trip without sealing: what the disk and the hashing cost alone. */
  plainFileRoundTripMs: number;
}

function source(piece: Buffer): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= TOTAL_BYTES) return void this.push(null);
      sent += piece.length;
      this.push(piece);
    },
  });
}

function sink(onChunk: (chunk: Buffer) => void = () => undefined): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      onChunk(chunk);
      done();
    },
  });
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function run(progress: (line: string) => void): Promise<SealResult> {
  const master = generateMasterKey();
  const keys = keyringDataKeys({ active: master, keys: [master] });
  const piece = randomBytes(PIECE_BYTES);
  const sealed: Buffer[] = [];
  const sealMs = await timed(() => pipeline(source(piece), new SealingStream(keys), sink((c) => sealed.push(c))));
  progress(`sealed 100 MB in memory in ${seconds(sealMs)}`);
  const unsealMs = await timed(() => pipeline(Readable.from(sealed), new UnsealingStream(keys), sink()));
  progress(`unsealed 100 MB in memory in ${seconds(unsealMs)}`);
  const dir = mkdtempSync(join(tmpdir(), 'cairn-seal-bench-'));
  try {
    const file = join(dir, 'backup.dump');
    const fileRoundTripMs = await timed(async () => {
      await pipeline(source(piece), new SealingStream(keys), createWriteStream(file));
      const hash = createHash('sha256');
      await pipeline(createReadStream(file), new UnsealingStream(keys), sink((c) => hash.update(c)));
      hash.digest();
    });
    progress(`sealed into a file and unsealed it (with SHA-256) in ${seconds(fileRoundTripMs)}`);
    const plainFileRoundTripMs = await timed(async () => {
      await pipeline(source(piece), createWriteStream(file));
      const hash = createHash('sha256');
      await pipeline(createReadStream(file), sink((c) => hash.update(c)));
      hash.digest();
    });
    progress(`wrote the plain stream to a file and read it back (with SHA-256) in ${seconds(plainFileRoundTripMs)}`);
    return { megabytes: TOTAL_BYTES / 2 ** 20, sealMs, unsealMs, fileRoundTripMs, plainFileRoundTripMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rate = (mb: number, ms: number): string => `${(mb / (ms / 1000)).toFixed(0)} MB/s`;

function format(r: SealResult): string[] {
  return [
    `sealed streams (64 KiB AES-256-GCM chunks), ${r.megabytes} MiB`,
    `  seal in memory:   ${seconds(r.sealMs)}, ${rate(r.megabytes, r.sealMs)}`,
    `  unseal in memory: ${seconds(r.unsealMs)}, ${rate(r.megabytes, r.unsealMs)}`,
    `  seal to a file, then unseal it with SHA-256 of the plaintext: ${seconds(r.fileRoundTripMs)}, ${rate(r.megabytes, r.fileRoundTripMs)} (of plaintext, both ways)`,
    `  the same without sealing (disk and SHA-256 alone): ${seconds(r.plainFileRoundTripMs)}, ${rate(r.megabytes, r.plainFileRoundTripMs)}`,
  ];
}

export const sealBenchmark: Benchmark<SealResult> = {
  name: 'seal',
  description: 'sealing and unsealing a 100 MB backup stream (AES-256-GCM in 64 KiB chunks), in memory and through a file',
  run,
  format,
};
