/**
 * @module The CI examples stay in step with the CLI: each is valid YAML, and the `cairn plan`
 * line it runs uses only options `cairn plan` has, including the ones a pull-request plan needs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildProgram } from '../src/cli/program.js';
import { REPO_ROOT } from './support/cairn-process.js';

const planOptions = new Set(
  (await buildProgram()).commands.find((c) => c.name() === 'plan')!.options.flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined)),
);

describe.each(['github-actions.yml', 'gitlab-ci.yml'])('examples/ci/%s', (file) => {
  const text = readFileSync(join(REPO_ROOT, 'examples', 'ci', file), 'utf8');

  it('is valid YAML', () => {
    expect(() => parse(text) as unknown).not.toThrow();
  });

  it('runs cairn plan against a server for a source, as Markdown, with detailed exit codes, using only options it has', () => {
    const line = /cairn plan (--server[^\n>]*)/.exec(text)?.[1] ?? '';
    const flags = line.split(/\s+/).filter((w) => w.startsWith('-'));
    expect(flags).toEqual(expect.arrayContaining(['--server', '-f', '--source', '-o', '--detailed-exitcode']));
    expect(flags.filter((f) => !planOptions.has(f))).toEqual([]);
    expect(text).toMatch(/exit 1/);
  });
});
