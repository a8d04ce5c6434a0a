/**
 * @module Test fixture for the sandbox cloud's own tests: clouds on ephemeral loopback ports in
 * temporary data dirs, closed after each test and removed after the file, a raw API call,
 * request bodies, and a scan of the sandbox's files for a secret.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { startSandboxCloud, type SandboxCloud, type SandboxCloudOptions } from './index.js';
import { callSandboxApi, type SandboxAnswer } from './sandbox-api-call.js';
import { DATABASE_FILE_NAME } from './store/database-file.js';

export interface SandboxFixture {
  tempDir: () => string;
  start: (options?: Partial<SandboxCloudOptions>) => Promise<SandboxCloud>;
  api: (cloud: SandboxCloud, method: string, path: string, body?: unknown, token?: string | null) => Promise<SandboxAnswer>;
}

/** Registers the cleanup hooks of the calling test file and returns its helpers. */
export function useSandboxFixture(prefix: string): SandboxFixture {
  const dirs: string[] = [];
  const clouds: SandboxCloud[] = [];
  afterEach(async () => {
    await Promise.all(clouds.splice(0).map((c) => c.close()));
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  return {
    tempDir,
    start: async (options = {}) => {
      const cloud = await startSandboxCloud({ dataDir: tempDir(), provisionMs: 0, ...options });
      clouds.push(cloud);
      return cloud;
    },
    api: (cloud, method, path, body, token = 'test-token') => callSandboxApi(cloud.url, method, path, body, token),
  };
}

/** A server create body with the given client token. */
export function newServer(token: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'web-1', region: 'eu-1', size: 'small', image: 'debian-12', client_token: token, ...extra };
}

/** A database create body on `serverId` with the given client token. */
export function newDatabase(serverId: string, token: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'shop-db', server_id: serverId, type: 'postgresql', version: '16', storage_gb: 20, password: 'correct-horse-battery', client_token: token, ...extra };
}

/** True when any file of the sandbox's SQLite database (main, -wal, -shm) holds `secret`'s bytes. */
export function sandboxFilesContain(dataDir: string, secret: string): boolean {
  const needle = Buffer.from(secret, 'utf8');
  return readdirSync(dataDir)
    .filter((name) => name.startsWith(DATABASE_FILE_NAME))
    .some((name) => readFileSync(join(dataDir, name)).includes(needle));
}

/** Polls `read` until `done` holds; fails with the last value after `timeoutMs`. Tests wait on state, never on the clock alone. */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    last = await read();
  }
  return last;
}
