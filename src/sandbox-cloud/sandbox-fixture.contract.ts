/**
 * @module Test fixture for the sandbox cloud's own tests: clouds on ephemeral loopback ports in
 * temporary data dirs, closed after each test and removed after the file, and a raw API call.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { startSandboxCloud, type SandboxCloud, type SandboxCloudOptions } from './index.js';
import { callSandboxApi, type SandboxAnswer } from './sandbox-api-call.js';

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
