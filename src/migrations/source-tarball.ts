/**
 * @module A platform's source tarball made into a directory an App can run from: downloaded
 * through the outbound guard with a size cap (streamed to a file, never held in memory), every
 * entry checked before anything is written (no absolute path, no `..`, no link leading out of the
 * directory, nothing but files, directories and links), then unpacked into a directory the
 * migration owns. A tarball whose entries all sit in one top directory (a GitHub or Heroku
 * archive) is used from inside it.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { isAbsolute, join, posix } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extract, list, type ReadEntry } from 'tar';
import { guardedFetch } from '../net/guarded-fetch.js';

/** The most a source tarball may weigh, compressed (CAIRN_MIGRATION_TARBALL_MAX_MB overrides it). */
export const DEFAULT_TARBALL_LIMIT_BYTES = 512 * 1024 * 1024;

export class UnsafeTarballError extends Error {
  override readonly name = 'UnsafeTarballError';
}

/** Downloads `url` into `file`; refuses an answer that is not 2xx or that passes `maxBytes`. */
export async function downloadTarball(url: string, file: string, options: { maxBytes: number; signal?: AbortSignal }): Promise<number> {
  const response = await guardedFetch(url, { redirect: 'follow', ...(options.signal ? { signal: options.signal } : {}) });
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw new UnsafeTarballError(`the platform's source tarball answered HTTP ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await response.body.cancel();
    throw new UnsafeTarballError(`the platform's source tarball is ${declared} bytes, more than the ${options.maxBytes} allowed`);
  }
  let seen = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > options.maxBytes) done(new UnsafeTarballError(`the platform's source tarball is more than the ${options.maxBytes} bytes allowed`));
      else done(null, chunk);
    },
  });
  await pipeline(Readable.fromWeb(response.body), cap, createWriteStream(file, { mode: 0o600 }));
  return seen;
}

/** Why the entry may not be unpacked, or undefined when it may. */
function entryRefusal(entry: ReadEntry): string | undefined {
  const path = entry.path;
  if (path.includes('\0')) return 'its name holds a NUL byte';
  if (isAbsolute(path) || posix.isAbsolute(path) || /^[A-Za-z]:/.test(path)) return 'it is an absolute path';
  if (path.split(/[/\\]/).includes('..')) return 'its path goes up with ..';
  switch (entry.type) {
    case 'File':
    case 'OldFile':
    case 'ContiguousFile':
    case 'Directory':
      return undefined;
    case 'SymbolicLink':
    case 'Link': {
      const link = entry.linkpath ?? '';
      if (isAbsolute(link) || posix.isAbsolute(link)) return `it links to the absolute path ${link}`;
      const from = entry.type === 'SymbolicLink' ? posix.dirname(path) : '.';
      const resolved = posix.normalize(posix.join(from, link));
      if (resolved === '..' || resolved.startsWith('../')) return `it links to ${link}, outside the source`;
      return undefined;
    }
    default:
      // Headers that carry metadata only (pax, long names) are not entries of their own.
      if (/Header|LongPath|LongLinkPath|ExtendedHeader|GlobalExtendedHeader|NextFileHasLongPath|NextFileHasLongLinkpath/.test(entry.type)) return undefined;
      return `it is a ${entry.type}, not a file, directory or link`;
  }
}

/** Reads every entry of `file` and throws UnsafeTarballError naming the first one that may not be unpacked. */
export async function checkTarball(file: string): Promise<number> {
  let count = 0;
  let refusal: string | undefined;
  // A path through a link is refused: the link's check was made from where the link lies, so a
  // link under a link (`d -> .`, then `d/l -> ..`) could otherwise lead out.
  const links = new Set<string>();
  await list({
    file,
    strict: true,
    onReadEntry: (entry) => {
      count++;
      const parts = posix.normalize(entry.path).replace(/\/$/, '').split('/');
      const through = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/')).find((prefix) => links.has(prefix));
      if (entry.type === 'SymbolicLink' || entry.type === 'Link') links.add(parts.join('/'));
      const why = through !== undefined ? `it lies under the link ${through}` : entryRefusal(entry);
      if (why !== undefined && refusal === undefined) refusal = `the source tarball's entry ${JSON.stringify(entry.path)} cannot be unpacked safely: ${why}`;
    },
  });
  if (refusal !== undefined) throw new UnsafeTarballError(refusal);
  if (count === 0) throw new UnsafeTarballError('the source tarball holds no files');
  return count;
}

/**
 * Checks `file` and unpacks it into `dir` (emptied first); returns the directory the App runs
 * from: `dir`, or its one top directory when the tarball had nothing else.
 */
export async function unpackTarball(file: string, dir: string): Promise<string> {
  await checkTarball(file);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await extract({ file, cwd: dir, strict: true, preservePaths: false, noChmod: false, preserveOwner: false, filter: (_path, entry) => entryRefusal(entry as ReadEntry) === undefined });
  const top = await readdir(dir);
  if (top.length === 1 && (await stat(join(dir, top[0]!))).isDirectory()) return join(dir, top[0]!);
  return dir;
}
