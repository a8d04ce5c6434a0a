/**
 * @module Sealed files at rest (./sealed-stream.ts) as a master key rotation sees them: which
 * master keys their headers use, and re-wrapping a file's data key under a new master key by
 * rewriting only its header's key slots, in place. The new wrapping goes into the free slot and
 * is synced before the old slot is cleared, so a crash at any point leaves a slot that opens
 * (a torn slot fails its own GCM tag and is passed over), and the records are never rewritten.
 */
import { closeSync, fsyncSync, openSync, readdirSync, readSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { wrapDataKey, type Keyring, type MasterKey } from './envelope.js';
import { KEY_SLOT_BYTES, KEY_SLOTS_OFFSET, keyringDataKeys, keySlotBytes, openKeySlots, readKeySlots, SEALED_HEADER_BYTES, startsSealed } from './sealed-stream.js';
import { SecretsError } from './secrets-error.js';

/** Where the local vendor keeps its sealed database backups, in a data dir. */
export function sealedBackupsDir(dataDir: string): string {
  return join(resolve(dataDir), 'local', 'backups');
}

/** The header of a sealed file, or undefined when the file is not (or not yet wholly) sealed. */
function readHeader(fd: number): Buffer | undefined {
  const header = Buffer.alloc(SEALED_HEADER_BYTES);
  const read = readSync(fd, header, 0, SEALED_HEADER_BYTES, 0);
  return read === SEALED_HEADER_BYTES && startsSealed(header) ? header : undefined;
}

function withFile<T>(path: string, flags: 'r' | 'r+', use: (fd: number) => T): T {
  const fd = openSync(path, flags);
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

/** The master key ids a sealed file's header names (none for a file that is not sealed). */
export function sealedFileKeyIds(path: string): string[] {
  const header = withFile(path, 'r', readHeader);
  return header ? readKeySlots(header).map((s) => s.keyId) : [];
}

export type RewrapOutcome = 'rewrapped' | 'current' | 'not-sealed';

/**
 * Re-wraps the data key of the sealed file at `path` under `next`, opening it with `keyring`.
 * A file not sealed (an old plain backup) is left as it is.
 */
export function rewrapSealedFile(path: string, keyring: Keyring, next: MasterKey): RewrapOutcome {
  return withFile(path, 'r+', (fd) => {
    const header = readHeader(fd);
    if (!header) return 'not-sealed';
    const opened = openKeySlots(header, keyringDataKeys(keyring));
    try {
      const other = 1 - opened.slot;
      const otherUsed = readKeySlots(header).some((s) => s.slot === other);
      if (opened.keyId === next.id) {
        if (otherUsed) writeSlot(fd, other, Buffer.alloc(KEY_SLOT_BYTES));
        return 'current';
      }
      writeSlot(fd, other, keySlotBytes({ keyId: next.id, wrapped: Buffer.from(wrapDataKey(next, opened.dataKey), 'base64url') }));
      writeSlot(fd, opened.slot, Buffer.alloc(KEY_SLOT_BYTES));
      return 'rewrapped';
    } finally {
      opened.dataKey.fill(0);
    }
  });
}

function writeSlot(fd: number, slot: number, bytes: Buffer): void {
  writeSync(fd, bytes, 0, bytes.length, KEY_SLOTS_OFFSET + slot * KEY_SLOT_BYTES);
  fsyncSync(fd);
}

/** The sealed files in one directory (complete, and still being written), for key rotation. */
export class SealedFileDirectory {
  constructor(readonly dir: string) {}

  /** Every file in the directory, including the `.partial` of a backup being written. */
  files(): string[] {
    try {
      return readdirSync(this.dir, { withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => join(this.dir, entry.name))
        .sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** The master key ids the files' headers name. */
  keyIdsInUse(): Set<string> {
    const ids = new Set<string>();
    for (const file of this.files()) for (const id of this.tryKeyIds(file)) ids.add(id);
    return ids;
  }

  /** Throws, naming the file, unless every sealed file's data key opens with `keyring`. */
  checkOpen(keyring: Keyring): void {
    for (const file of this.files()) {
      try {
        withFile(file, 'r', (fd) => {
          const header = readHeader(fd);
          if (header) openKeySlots(header, keyringDataKeys(keyring)).dataKey.fill(0);
        });
      } catch (error) {
        throw new SecretsError(`the data key of the sealed backup ${file} does not open: ${(error as Error).message}`, { cause: error });
      }
    }
  }

  /** Re-wraps every sealed file's data key under `next`; returns how many changed. */
  rewrap(keyring: Keyring, next: MasterKey): number {
    let rewrapped = 0;
    for (const file of this.files()) {
      try {
        if (rewrapSealedFile(file, keyring, next) === 'rewrapped') rewrapped++;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // deleted meanwhile
        throw new SecretsError(`cannot re-wrap the data key of the sealed backup ${file}: ${(error as Error).message}`, { cause: error });
      }
    }
    return rewrapped;
  }

  private tryKeyIds(file: string): string[] {
    try {
      return sealedFileKeyIds(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }
}
