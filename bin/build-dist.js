// @module `npm run build` (also the `prepare` script, so `npm ci` builds): compiles src/ into
// dist/ with tsc (tsconfig.build.json), bundles the CLI from that into dist/cli with esbuild, and
// the dashboard (web/) into dist/web with Vite, then
// writes dist/build-stamp.json with the newest mtime of the inputs as measured BEFORE
// compiling, so that an edit made during the build still makes dist/ count as stale (see
// dist-freshness.js).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestInputMtimeMs, STAMP_FILE } from './dist-freshness.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const newest = newestInputMtimeMs(root);
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
await bundleCli();
const { build } = await import('vite');
await build({ configFile: join(root, 'web', 'vite.config.ts') });
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, STAMP_FILE), `${JSON.stringify({ newestInputMtimeMs: newest, builtAt: new Date().toISOString() }, null, 2)}\n`);

/**
 * The CLI as one entry module and a chunk per part loaded on demand (each command, the drivers,
 * a vendor's SDK glue): node resolves, reads and links a few dozen files at start-up instead of
 * several hundred modules, about a third of a command's start-up. Packages stay in node_modules
 * (`packages: 'external'`). dist/cli/meta.json maps every output file to the modules in it.
 */
async function bundleCli() {
  const { build } = await import('esbuild');
  const outdir = join(root, 'dist', 'cli');
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: [join(root, 'dist', 'src', 'cli', 'main.js')],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outdir,
    absWorkingDir: root,
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
  });
  writeFileSync(join(outdir, 'meta.json'), JSON.stringify(result.metafile));
}
