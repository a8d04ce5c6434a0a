/**
 * @module What a release of an app runs: its source fetched into the release directory (git at
 * a ref), a directory of this host run where it is (a path, resolved from cairn's working
 * directory, and only inside the directories the operator allows: CAIRN_LOCAL_SOURCE_DIRS), or
 * an image run by docker or podman. Sources this host cannot serve are refused with what is missing.
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import type { AppDesired } from '../contract.js';
import { UnsupportedError, VendorRejectedError } from '../errors.js';
import { allowedSourcePath } from '../../security/host-access.js';
import { checkOutGit } from './git-checkout.js';

export interface FetchedSource {
  /** Where the build and the process run. */
  cwd: string;
  commit: string | null;
}

/** The program's path on this host's PATH, if it is there. */
export function onPath(program: string): string | undefined {
  return (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, program)).find((path) => existsSync(path));
}

function engineWorks(program: string): Promise<string | null> {
  return new Promise((done) => {
    execFile(program, ['info'], { timeout: 10_000 }, (error, _stdout, stderr) => done(error ? (stderr.trim().split('\n').pop() ?? error.message) : null));
  });
}

/** docker or podman, when one is installed and answers; throws what is missing otherwise. */
export async function containerEngine(appName: string): Promise<string> {
  const problems: string[] = [];
  for (const name of ['docker', 'podman']) {
    const program = onPath(name);
    if (!program) continue;
    const problem = await engineWorks(program);
    if (problem === null) return program;
    problems.push(`${name} is installed but does not answer (${problem})`);
  }
  throw new UnsupportedError(
    `App/${appName}: an image source needs docker or podman on this host; ${problems.length > 0 ? problems.join('; ') : 'neither is installed'}. Use a git or path source, or start the container engine.`,
  );
}

/** The directory a path source names, if the operator allows apps to run from it. */
function sourceDirectory(appName: string, sourcePath: string, alsoAllowed: readonly string[]): string {
  const allowed = allowedSourcePath(sourcePath, process.env, alsoAllowed);
  if ('refusal' in allowed) throw new VendorRejectedError(`App/${appName}: ${allowed.refusal}`, { field: 'source' });
  return allowed.path;
}

/** Refuses at once what can never work here (a missing path, no container engine). */
export async function checkSource(desired: AppDesired, alsoAllowed: readonly string[] = []): Promise<void> {
  const { source } = desired;
  if (source.image !== undefined) {
    await containerEngine(desired.name);
    return;
  }
  if (source.path !== undefined) {
    const path = sourceDirectory(desired.name, source.path, alsoAllowed);
    if (!existsSync(path) || !statSync(path).isDirectory()) {
      throw new VendorRejectedError(`App/${desired.name}: spec.source.path ${path} is not a directory on this host`, { field: 'source' });
    }
  }
  // Without spec.command, the build and start are detected from the fetched tree (../kit/buildpacks.ts).
}

/** Fetches a git source into `dir`; a path source runs where it is. */
export async function fetchSource(desired: AppDesired, dir: string, alsoAllowed: readonly string[] = []): Promise<FetchedSource> {
  const { source } = desired;
  if (source.git) {
    const commit = await checkOutGit({ url: source.git.url, ref: source.git.ref }, dir);
    return { cwd: resolve(dir, source.git.path), commit };
  }
  if (source.path !== undefined) {
    // A path source runs where it is, like a developer's checkout: its build and its modules stay there.
    return { cwd: sourceDirectory(desired.name, source.path, alsoAllowed), commit: null };
  }
  return { cwd: dir, commit: null };
}
