/**
 * @module The OpenAPI document passes `redocly lint` (recommended rules, redocly.yaml) with no
 * errors and no warnings; and the same lint, run the same way, does catch a broken document.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { OPENAPI_PATH } from '../support/openapi-document.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REDOCLY_BIN = join(REPO_ROOT, 'node_modules/@redocly/cli/bin/cli.js');

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer?: string }>;
}

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: LintProblem[];
}

/** `redocly lint --format=json` from the repository root (so redocly.yaml and its ignore file apply). */
async function lint(file: string): Promise<LintReport> {
  const run = promisify(execFile);
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  try {
    const { stdout } = await run(process.execPath, [REDOCLY_BIN, 'lint', file, '--format=json'], { cwd: REPO_ROOT, env, maxBuffer: 16 * 1024 * 1024 });
    return JSON.parse(stdout) as LintReport;
  } catch (error) {
    // redocly exits 1 when it finds errors; the report is still on stdout.
    const stdout = (error as { stdout?: string }).stdout;
    if (stdout && stdout.trim().startsWith('{')) return JSON.parse(stdout) as LintReport;
    throw error;
  }
}

function describeProblems(report: LintReport): string {
  return report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`).join('\n');
}

describe('redocly lint of schemas/openapi.yaml', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-openapi-lint-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('finds no errors and no warnings', async () => {
    const report = await lint('schemas/openapi.yaml');
    expect(describeProblems(report)).toBe('');
    expect(report.totals.errors).toBe(0);
    expect(report.totals.warnings).toBe(0);
  });

  it('reports a document with a missing operationId and an unresolvable $ref', async () => {
    const doc = parse(readFileSync(OPENAPI_PATH, 'utf8')) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const listServers = doc.paths['/servers']!.get!;
    delete listServers.operationId;
    (listServers.responses as Record<string, unknown>)['404'] = { $ref: '#/components/responses/NoSuchResponse' };
    const broken = join(scratch, 'broken.yaml');
    writeFileSync(broken, stringify(doc));

    const report = await lint(broken);
    const rules = report.problems.map((p) => p.ruleId);
    expect(rules).toContain('operation-operationId');
    expect(rules).toContain('no-unresolved-refs');
    expect(report.totals.errors).toBeGreaterThan(0);
  });
});
