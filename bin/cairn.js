#!/usr/bin/env node
// @module The `cairn` executable: runs the compiled, bundled dist/cli (`npm ci` builds it,
// through the `prepare` script). In a checkout (src/ present) a dist/ older than src/ is refused with what
// to run, never run silently; where src/ is absent (the container image, a package) dist/ runs
// as is. CAIRN_FROM_SOURCE=1 runs src/ through tsx instead (a dev dependency: `npm run cairn`
// and the tests that spawn the CLI use it).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { staleDistReason } from './dist-freshness.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'cli', 'main.js');
const source = join(root, 'src', 'cli', 'main.ts');

function refuse(message) {
  console.error(`Error: ${message}`);
  process.exit(1);
}

if (process.env.CAIRN_FROM_SOURCE === '1') {
  if (!existsSync(source)) refuse('CAIRN_FROM_SOURCE=1 runs src/, which this installation does not have');
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    refuse('CAIRN_FROM_SOURCE=1 runs src/ through tsx, a dev dependency that is not installed: run `npm ci`');
  }
  tsx.register();
  await import(pathToFileURL(source).href);
} else {
  const stale = existsSync(source) ? staleDistReason(root) : undefined;
  if (stale) refuse(stale);
  if (!existsSync(compiled)) refuse('dist/ has no compiled CLI: run `npm run build`');
  await import(pathToFileURL(compiled).href);
}
