#!/usr/bin/env node
// @module The `cairn` executable. In a source checkout it runs src/ through tsx, so a stale
// dist/ can never stand in for the code being worked on; with CAIRN_PREFER_DIST=1 (benchmarks)
// or where src/ is absent (the container image, a package) it runs the compiled dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'src', 'cli', 'main.js');
const source = join(root, 'src', 'cli', 'main.ts');
const useCompiled = existsSync(compiled) && (process.env.CAIRN_PREFER_DIST === '1' || !existsSync(source));
if (useCompiled) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(source).href);
}
