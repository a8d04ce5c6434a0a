// @module Whether dist/ was built from the sources in this checkout, cheaply: the build
// (bin/build-dist.js) records the newest modification time among its inputs (src/ without
// tests, schemas/, and web/, the dashboard) in dist/build-stamp.json, and bin/cairn.js
// compares it with the newest one now: one stat per file, no hashing and no module beyond node:fs.
import { readdirSync, readFileSync, statSync } from 'node:fs';

/** What the build compiles or the compiled CLI reads, relative to the package root. */
export const BUILD_INPUTS = ['src', 'schemas', 'web'];
export const STAMP_FILE = 'dist/build-stamp.json';

/** Files the build leaves out (tsconfig.build.json excludes them): editing them needs no rebuild. */
const notBuilt = (name) => name.endsWith('.test.ts') || name.endsWith('.contract.ts');

/**
 * The newest mtime (ms) of the build's inputs under `root`, directories included (so that a
 * removed or renamed file counts too); 0 when there are none.
 */
export function newestInputMtimeMs(root) {
  let newest = 0;
  const walk = (dir) => {
    let entries;
    try {
      newest = Math.max(newest, statSync(dir).mtimeMs);
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) walk(`${dir}/${entry.name}`);
      else if (!notBuilt(entry.name)) newest = Math.max(newest, statSync(`${dir}/${entry.name}`).mtimeMs);
    }
  };
  for (const input of BUILD_INPUTS) walk(`${root}/${input}`);
  return newest;
}

/** The stamp the last build wrote, or undefined without one. */
export function readBuildStamp(root) {
  try {
    const stamp = JSON.parse(readFileSync(`${root}/${STAMP_FILE}`, 'utf8'));
    return typeof stamp.newestInputMtimeMs === 'number' ? stamp : undefined;
  } catch {
    return undefined;
  }
}

/** Why dist/ must not run in this checkout (saying to run `npm run build`), or undefined when it is current. */
export function staleDistReason(root) {
  const stamp = readBuildStamp(root);
  if (!stamp) return 'dist/ is missing or was not built by `npm run build`: run `npm run build`';
  if (newestInputMtimeMs(root) > stamp.newestInputMtimeMs) return 'dist/ is older than src/: run `npm run build`';
  return undefined;
}
