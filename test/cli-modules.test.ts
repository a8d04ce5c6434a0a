/**
 * @module What the compiled CLI loads per command: start-up is paid for what a command needs
 * (issue #11). A plan of the data dir loads the store but no driver and no HTTP client (those
 * load for `--refresh` and `--server`); validate loads neither the store nor the drivers;
 * `--version` loads no command. Each child runs with module hooks that name every file it loads;
 * the CLI is bundled (dist/cli), so each file is mapped back to the modules in it with the
 * bundle's metafile.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CAIRN_BIN, REPO_ROOT, testEnv } from './support/cairn-process.js';

/** Module hooks, as data URLs, that write `cairn-loaded URL` to stderr for every module loaded. */
const LOAD_HOOKS = 'export async function load(url, context, nextLoad) { process.stderr.write(`cairn-loaded ${url}\\n`); return nextLoad(url, context); }';
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(LOAD_HOOKS)}`)});`;
const QUICKSTART = join(REPO_ROOT, 'examples', 'quickstart');
const scratch = mkdtempSync(join(tmpdir(), 'cairn-cli-modules-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The bundle's metafile: each output file with the modules (paths from the repository root) bundled into it. */
const bundled = JSON.parse(readFileSync(join(REPO_ROOT, 'dist', 'cli', 'meta.json'), 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };

/** The modules in a loaded file: those bundled into it, or the file itself (a package's). */
function modulesIn(path: string): string[] {
  const output = bundled.outputs[path];
  return output === undefined ? [path] : Object.keys(output.inputs);
}

/** Runs the CLI and answers with its exit code and the repository-relative paths of the modules it loaded. */
function loadedBy(args: string[]): { code: number | null; modules: string[]; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, CAIRN_BIN, ...args], { cwd: REPO_ROOT, env: testEnv(), encoding: 'utf8' });
  const modules = result.stderr
    .split('\n')
    .filter((line) => line.startsWith('cairn-loaded file://'))
    .map((line) => decodeURIComponent(new URL(line.slice('cairn-loaded '.length)).pathname).slice(REPO_ROOT.length + 1))
    .flatMap(modulesIn);
  const stderr = result.stderr.split('\n').filter((line) => !line.startsWith('cairn-loaded ')).join('\n');
  return { code: result.status, modules, stderr };
}

const isDriver = (path: string): boolean => path.startsWith('dist/src/drivers/');
const isHttpClient = (path: string): boolean => /node_modules\/(undici|@aws-sdk|@azure|googleapis|oci-)/.test(path);
const isStore = (path: string): boolean => path.startsWith('dist/src/store/');

describe('modules the compiled CLI loads', () => {
  it('plans against the data dir with the store and without any driver or HTTP client', () => {
    const run = loadedBy(['plan', '-f', QUICKSTART, '--data-dir', join(scratch, 'plan'), '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.modules.some(isStore)).toBe(true);
    expect(run.modules.filter(isDriver)).toEqual([]);
    expect(run.modules.filter(isHttpClient)).toEqual([]);
  });

  it('loads the drivers for plan --refresh, which looks at the world', () => {
    const run = loadedBy(['plan', '-f', QUICKSTART, '--data-dir', join(scratch, 'refresh'), '--refresh', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.modules.some(isDriver)).toBe(true);
  });

  it('validates without the store or a driver', () => {
    const run = loadedBy(['validate', '-q', '-f', QUICKSTART]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.modules.filter((path) => isStore(path) || isDriver(path))).toEqual([]);
  });

  it('answers --version without loading a command', () => {
    const run = loadedBy(['--version']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.modules.filter((path) => path.startsWith('dist/src/cli/commands/'))).toEqual([]);
  });
});
