/**
 * @module Turns the paths a user gives (`-f a.yaml -f manifests/`) into manifest sources: files
 * as named, directories searched recursively for *.yaml and *.yml in a stable order (skipping
 * hidden entries and node_modules), and `-` for stdin. Sizes are checked before anything is read.
 */
import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { wholeFileError, type ManifestError } from './manifest-error.js';
import { formatByteSize } from './manifest-limits.js';

/** YAML text and the name errors should give it. */
export interface ManifestSource {
  file: string;
  text: string;
}

const MANIFEST_FILE = /\.ya?ml$/i;

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

async function kindOfEntry(path: string): Promise<'file' | 'directory' | 'other'> {
  try {
    const info = await stat(path);
    return info.isDirectory() ? 'directory' : info.isFile() ? 'file' : 'other';
  } catch {
    return 'other';
  }
}

/** The manifest files under `dir`, depth first in name order; directories seen before (symlink loops) are skipped. */
async function filesUnder(dir: string, visited: Set<string>): Promise<string[]> {
  const real = await realpath(dir);
  if (visited.has(real)) return [];
  visited.add(real);
  const entries = (await readdir(dir, { withFileTypes: true })).sort(byName);
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    const kind = entry.isSymbolicLink() ? await kindOfEntry(path) : entry.isDirectory() ? 'directory' : entry.isFile() ? 'file' : 'other';
    if (kind === 'directory') files.push(...(await filesUnder(path, visited)));
    else if (kind === 'file' && MANIFEST_FILE.test(entry.name)) files.push(path);
  }
  return files;
}

/** The files a list of paths stands for (`-` stays `-`), each once, and errors for paths that give none. */
export async function expandManifestPaths(paths: readonly string[]): Promise<{ files: string[]; errors: ManifestError[] }> {
  const files: string[] = [];
  const errors: ManifestError[] = [];
  const seenFiles = new Set<string>();
  const visitedDirectories = new Set<string>();
  const add = async (file: string): Promise<void> => {
    const identity = file === '-' ? '-' : await realpath(file);
    if (seenFiles.has(identity)) return;
    seenFiles.add(identity);
    files.push(file);
  };
  for (const path of paths) {
    if (path === '-') {
      await add(path);
      continue;
    }
    const kind = await kindOfEntry(path);
    if (kind === 'file') {
      await add(path);
    } else if (kind === 'directory') {
      const found = await filesUnder(path, visitedDirectories);
      if (found.length === 0) errors.push(wholeFileError(path, 'no manifests here: the directory holds no .yaml or .yml files'));
      for (const file of found) await add(file);
    } else {
      errors.push(wholeFileError(path, 'no such file or directory'));
    }
  }
  return { files, errors };
}

/** Reads a manifest file, refusing one over `maxBytes` without reading it. */
export async function readManifestFile(file: string, maxBytes: number): Promise<ManifestSource | ManifestError> {
  try {
    const { size } = await stat(file);
    if (size > maxBytes) {
      return wholeFileError(file, `file is ${formatByteSize(size)}; the limit is ${formatByteSize(maxBytes)} per file (split it into several files)`);
    }
    return { file, text: await readFile(file, 'utf8') };
  } catch (cause) {
    return wholeFileError(file, `cannot read: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** Reads all of stdin as UTF-8, giving up (undefined) once it exceeds `maxBytes`. */
export async function readStdinText(maxBytes: number, stream: NodeJS.ReadableStream = process.stdin): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += buffer.length;
    if (total > maxBytes) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
