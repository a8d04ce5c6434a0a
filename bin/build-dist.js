// @module `npm run build` (also the `prepare` script, so `npm ci` builds): compiles src/ into
// dist/ with tsc (tsconfig.build.json) and the dashboard (web/) into dist/web with Vite, then
// writes dist/build-stamp.json with the newest mtime of the inputs as measured BEFORE
// compiling, so that an edit made during the build still makes dist/ count as stale (see
// dist-freshness.js).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestInputMtimeMs, STAMP_FILE } from './dist-freshness.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const newest = newestInputMtimeMs(root);
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
const { build } = await import('vite');
await build({ configFile: join(root, 'web', 'vite.config.ts') });
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, STAMP_FILE), `${JSON.stringify({ newestInputMtimeMs: newest, builtAt: new Date().toISOString() }, null, 2)}\n`);
