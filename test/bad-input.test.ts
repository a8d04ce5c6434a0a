/**
 * @module Bad input through the real CLI: every broken manifest of the corpus gets its precise
 * error, and a set with any broken manifest writes nothing — not even its valid neighbours.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCairn } from './support/cairn-process.js';
import { writeStack } from './support/manifests.js';

const BROKEN = join(REPO_ROOT, 'test', 'fixtures', 'broken');
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cairn-bad-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The `# expect:` lines of a corpus file, with the file named as the CLI names it. */
function expectedLines(file: string): string[] {
  return readFileSync(join(BROKEN, file), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('# expect: '))
    .map((line) => line.slice('# expect: '.length));
}

describe('broken manifests through the CLI', () => {
  it('apply of each corpus file prints exactly its expected errors, exits 1 and records nothing', async () => {
    const dataDir = join(root, 'corpus-state');
    const files = readdirSync(BROKEN).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(25);
    const pending = [...files];
    const worker = async (): Promise<void> => {
      for (let file = pending.shift(); file !== undefined; file = pending.shift()) {
        const result = await runCairn(['apply', '-f', file, '--auto-approve', '--data-dir', dataDir], { cwd: BROKEN });
        expect(result.code, file).toBe(1);
        const printed = result.stderr.replace(/^Error: /, '').split('\n').filter((line) => line.startsWith(file));
        expect(printed, `${file}; stderr:\n${result.stderr}`).toEqual(expectedLines(file));
        expect(result.stderr, file).toContain('nothing was changed');
      }
    };
    await Promise.all([worker(), worker()]);
    for (const kind of ['providers', 'servers', 'databases', 'apps']) {
      const get = await runCairn(['get', kind, '-o', 'json', '--data-dir', dataDir]);
      expect(JSON.parse(get.stdout)).toEqual({ items: [] });
    }
  }, 180_000);

  it('one broken document among valid ones applies none of them', async () => {
    const dir = join(root, 'mixed');
    writeStack(dir, { servers: 2 });
    writeFileSync(join(dir, 'databases.yaml'), readFileSync(join(dir, 'databases.yaml'), 'utf8').replace('storageGb: 10', 'storageGb: 0'));
    const dataDir = join(root, 'mixed-state');
    const result = await runCairn(['apply', '-f', dir, '--auto-approve', '--data-dir', dataDir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(dir, 'databases.yaml')}:9:14 Database/db-1 spec.storageGb: must be >= 1`);
    for (const kind of ['providers', 'servers', 'databases', 'apps']) {
      const get = await runCairn(['get', kind, '-o', 'json', '--data-dir', dataDir]);
      expect(JSON.parse(get.stdout)).toEqual({ items: [] });
    }
  });

  it('validate exits 1 naming the file, line, resource, field and reason', async () => {
    const result = await runCairn(['validate', '-f', join(BROKEN, 'bad-enum-type.yaml')]);
    expect(result.code).toBe(1);
    for (const line of expectedLines('bad-enum-type.yaml')) expect(result.stderr).toContain(line.replace('bad-enum-type.yaml', join(BROKEN, 'bad-enum-type.yaml')));
  });
});
