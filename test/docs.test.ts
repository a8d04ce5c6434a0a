/**
 * @module The repository's own documentation: docs/api.md is what `npm run gen:api-docs` makes
 * of schemas/openapi.yaml today (so it never goes stale), it lists every operation, and no
 * Markdown file of the repository links to a path outside it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readOpenApi, renderApiReference } from '../scripts/api-reference.js';
import { REPO_ROOT } from './support/cairn-process.js';

const openapi = readOpenApi(join(REPO_ROOT, 'schemas', 'openapi.yaml'));

/** Relative link targets of a Markdown text: `[text](target)` and `[text]: target`, without #fragments. */
function relativeLinks(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g), ...markdown.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?\s*$/gm)]
    .map((m) => (m[1] ?? '').split('#')[0] ?? '');
  return targets.filter((t) => t !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('/'));
}

describe('docs/api.md', () => {
  it('is what gen:api-docs makes of schemas/openapi.yaml (run `npm run gen:api-docs` when this fails)', () => {
    expect(readFileSync(join(REPO_ROOT, 'docs', 'api.md'), 'utf8')).toBe(renderApiReference(openapi));
  });

  it('has a section for every operation of the OpenAPI document', () => {
    const rendered = renderApiReference(openapi);
    const paths = openapi.paths as Record<string, Record<string, unknown>>;
    const operations = Object.entries(paths).flatMap(([path, item]) =>
      ['get', 'put', 'post', 'patch', 'delete'].filter((m) => item[m] !== undefined).map((m) => `### \`${m.toUpperCase()} ${path}\``));
    expect(operations.length).toBeGreaterThan(50);
    for (const heading of operations) expect(rendered).toContain(heading);
  });
});

describe('links in the repository’s Markdown', () => {
  it('finds relative links, and leaves URLs and anchors alone', () => {
    expect(relativeLinks('[a](../x.md) [b](https://e.org) [c](#top) [d](docs/api.md#ops "t")\n[e]: ../../y.md')).toEqual(['../x.md', 'docs/api.md', '../../y.md']);
  });

  it('never leave the repository, and name files that exist', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(files).toContain('README.md');
    const problems: string[] = [];
    for (const file of files) {
      for (const target of relativeLinks(readFileSync(join(REPO_ROOT, file), 'utf8'))) {
        const absolute = resolve(REPO_ROOT, dirname(file), decodeURIComponent(target));
        const inside = relative(REPO_ROOT, absolute);
        if (inside.startsWith('..')) problems.push(`${file} links to ${target}, outside the repository`);
        else if (!existsSync(absolute)) problems.push(`${file} links to ${target}, which does not exist`);
      }
    }
    expect(problems).toEqual([]);
  });
});
