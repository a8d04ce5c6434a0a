/**
 * @module The `cairn` executable runs compiled JavaScript: in a package root made in the test,
 * bin/cairn.js runs dist/ when its build stamp is current, refuses with what to run when src/
 * changed since (a test file does not count), runs dist/ unchecked where src/ is absent (an
 * installed package, the image), and runs src/ only when asked (CAIRN_FROM_SOURCE=1, needing
 * tsx). Then the real compiled CLI of this checkout (the tests' global setup built it when stale) answers
 * `--version` and validates the quickstart, its schemas found from the package root.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain JavaScript beside the executable, without type declarations
import { newestInputMtimeMs } from '../bin/dist-freshness.js';
import { REPO_ROOT } from './support/cairn-process.js';

const newest = newestInputMtimeMs as (root: string) => number;

const root = mkdtempSync(join(tmpdir(), 'cairn-bin-'));

function write(path: string, text: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

function run(args: string[], env: NodeJS.ProcessEnv = {}, cwd = root): { code: number | null; stdout: string; stderr: string } {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (env.CAIRN_FROM_SOURCE === undefined) delete childEnv.CAIRN_FROM_SOURCE;
  const result = spawnSync(process.execPath, [join(cwd, 'bin', 'cairn.js'), ...args], { cwd, env: childEnv, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Writes the stamp a build made now would write. */
function stampNow(): void {
  write('dist/build-stamp.json', JSON.stringify({ newestInputMtimeMs: newest(root), builtAt: new Date().toISOString() }));
}

/** Sets a file's mtime `seconds` from now. */
function age(path: string, seconds: number): void {
  const at = new Date(Date.now() + seconds * 1000);
  utimesSync(join(root, path), at, at);
}

beforeAll(() => {
  mkdirSync(join(root, 'bin'));
  for (const file of ['cairn.js', 'dist-freshness.js']) copyFileSync(join(REPO_ROOT, 'bin', file), join(root, 'bin', file));
  write('package.json', '{"type": "module"}');
  write('dist/cli/main.js', "console.log('compiled ran');\n");
  write('src/cli/main.ts', "console.log('source ran');\n");
  write('src/cli/main.test.ts', '// a test\n');
  write('schemas/kind.json', '{}');
  for (const path of ['src/cli/main.ts', 'src/cli/main.test.ts', 'schemas/kind.json', 'src/cli', 'src', 'schemas']) age(path, -60);
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('bin/cairn.js', () => {
  it('refuses a checkout whose dist/ has no build stamp', () => {
    const result = run(['--version']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('run `npm run build`');
  });

  it('runs dist/ when it was built after the last change to src/ and schemas/', () => {
    stampNow();
    expect(run(['--version'])).toMatchObject({ code: 0, stdout: 'compiled ran\n' });
  });

  it('ignores changes to files the build leaves out (tests)', () => {
    age('src/cli/main.test.ts', 5);
    expect(run(['--version'])).toMatchObject({ code: 0, stdout: 'compiled ran\n' });
  });

  it('refuses a dist/ older than src/, saying to rebuild', () => {
    age('src/cli/main.ts', 5);
    const result = run(['--version']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('Error: dist/ is older than src/: run `npm run build`\n');
    stampNow();
    expect(run(['--version']).code).toBe(0);
  });

  it('counts a changed schema, and a file added to src/', () => {
    age('schemas/kind.json', 10);
    expect(run(['--version']).stderr).toContain('dist/ is older than src/');
    stampNow();
    write('src/cli/added.ts', '');
    age('src/cli/added.ts', -60);
    age('src/cli', 15);
    expect(run(['--version']).code).toBe(1);
    stampNow();
  });

  it('counts a changed dashboard source (web/, built into dist/web)', () => {
    write('web/src/app.tsx', '');
    for (const path of ['web/src/app.tsx', 'web/src', 'web']) age(path, -60);
    stampNow();
    expect(run(['--version']).code).toBe(0);
    age('web/src/app.tsx', 20);
    expect(run(['--version']).stderr).toContain('dist/ is older than src/');
    stampNow();
  });

  it('runs src/ through tsx only with CAIRN_FROM_SOURCE=1, and says so when tsx is not installed', () => {
    const result = run(['--version'], { CAIRN_FROM_SOURCE: '1' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('tsx, a dev dependency that is not installed');
  });

  it('runs dist/ unchecked where src/ is absent (an installed package)', () => {
    rmSync(join(root, 'src'), { recursive: true });
    rmSync(join(root, 'dist', 'build-stamp.json'));
    expect(run(['--version'])).toMatchObject({ code: 0, stdout: 'compiled ran\n' });
  });
});

describe('the compiled CLI of this checkout', () => {
  it('prints its version', () => {
    expect(run(['--version'], {}, REPO_ROOT)).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  });

  it('validates manifests against the schemas it finds from the package root', () => {
    const result = run(['validate', '-f', join(REPO_ROOT, 'examples', 'quickstart')], {}, REPO_ROOT);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\d+ manifests valid\n$/);
  });
});
