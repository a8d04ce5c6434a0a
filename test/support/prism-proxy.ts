/**
 * @module Stoplight Prism as a second, independent check of what drivers send: `prism proxy`
 * serves a vendor's document in front of its double, validates every request against the
 * document with its own validator (not openapi-backend, which the doubles use) and, with
 * `--errors`, answers one that breaks it with 422 instead of passing it on. Started on loopback
 * on a free port, stopped after.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';

export interface PrismProxy {
  url: string;
  /** Prism's log lines about requests it found outside the document. */
  requestViolations(): string[];
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Prism's log lines naming a request it refused or warned about. */
const REQUEST_PROBLEM = /Request did not pass the validation rules|Request terminated with error|NO_PATH_MATCHED|UNPROCESSABLE_ENTITY|\[VALIDATOR\].*request/i;

export async function startPrismProxy(document: string, upstream: string, startMs = 90_000): Promise<PrismProxy> {
  const cli = require.resolve('@stoplight/prism-cli/dist/index.js');
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [cli, 'proxy', document, upstream, '--port', String(port), '--host', '127.0.0.1', '--errors'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SCARF_ANALYTICS: 'false', NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  const lines: string[] = [];
  let pending = '';
  const read = (chunk: Buffer): void => {
    pending += chunk.toString('utf8');
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    // eslint-disable-next-line no-control-regex
    lines.push(...parts.map((line) => line.replace(/\u001b\[[0-9;]*m/g, '')));
  };
  child.stdout?.on('data', read);
  if (process.env.PRISM_ECHO) child.stdout?.on('data', (c: Buffer) => process.stdout.write(c));
  child.stderr?.on('data', read);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + startMs;
  while (!lines.some((line) => line.includes('Prism is listening'))) {
    if (child.exitCode !== null) throw new Error(`prism proxy exited before listening:\n${lines.slice(-20).join('\n')}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`prism proxy did not listen within ${startMs} ms:\n${lines.slice(-20).join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    requestViolations: () => lines.filter((line) => REQUEST_PROBLEM.test(line)),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
