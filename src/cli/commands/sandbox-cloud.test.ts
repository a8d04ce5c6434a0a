/**
 * @module Tests of `cairn sandbox-cloud`: it starts in a real process, prints its address on one
 * line, serves the vendor API there, stops cleanly on SIGTERM, and refuses bad numbers with exit 1.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../cli-error.js';
import { registerSandboxCloudCommand } from './sandbox-cloud.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-sandbox-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A tiny entry point with only this command, so the test does not depend on the rest of the CLI. */
const entry = join(dir, 'entry.mts');
writeFileSync(entry, [
  `import { Command } from ${JSON.stringify(createRequire(import.meta.url).resolve('commander'))};`,
  `import { registerSandboxCloudCommand } from ${JSON.stringify(resolve('src/cli/commands/sandbox-cloud.ts'))};`,
  'const program = new Command("cairn").exitOverride();',
  'registerSandboxCloudCommand(program);',
  'try { await program.parseAsync(process.argv); } catch (error) { console.error(`Error: ${error.message}`); process.exitCode = 1; }',
].join('\n'));

function parse(args: string[]): Promise<unknown> {
  const program = new Command('cairn').exitOverride();
  registerSandboxCloudCommand(program);
  return program.parseAsync(['node', 'cairn', 'sandbox-cloud', '--data-dir', join(dir, 'refused'), ...args]);
}

describe('cairn sandbox-cloud', () => {
  it('listens, prints one line with its address, serves the API and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry, 'sandbox-cloud', '--port', '0', '--data-dir', join(dir, 'data'), '--provision-ms', '0'], {
      cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const lines = createInterface({ input: child.stdout });
    const first = await new Promise<string>((done, fail) => {
      lines.once('line', done);
      child.once('exit', (code) => fail(new Error(`exited with ${code} before printing`)));
    });
    expect(first).toMatch(/^sandbox cloud \(simulated vendor\) listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = first.slice(first.indexOf('http://'));
    const regions = await fetch(`${url}/v1/regions`, { headers: { authorization: 'Bearer t' } });
    expect(regions.status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses bad numbers and a non-loopback host, naming the flag', async () => {
    await expect(parse(['--port', 'abc'])).rejects.toThrow(new CliError('--port must be an integer from 0 to 65535, got "abc"'));
    await expect(parse(['--error-rate', '1.5'])).rejects.toThrow(/--error-rate must be a number from 0 to 1/);
    await expect(parse(['--latency-ms', '-1'])).rejects.toThrow(/--latency-ms/);
    await expect(parse(['--rate-limit', 'fast'])).rejects.toThrow(/--rate-limit/);
    await expect(parse(['--seed', '1.5'])).rejects.toThrow(/--seed must be an integer/);
    await expect(parse(['--host', '0.0.0.0'])).rejects.toThrow(/loopback only/);
  });

  it('exits 1 with the reason on stderr when the arguments are wrong', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry, 'sandbox-cloud', '--port', '70000', '--data-dir', join(dir, 'bad')], {
      cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
    expect(code).toBe(1);
    expect(stderr).toContain('--port must be an integer from 0 to 65535, got "70000"');
  });
});
