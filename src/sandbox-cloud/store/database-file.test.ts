/**
 * @module Tests of the sandbox file's schema steps: a version-1 file (plaintext passwords and env
 * values) opens as version 2 with its passwords still in force but only as hashes, its env values
 * only as digests, and neither left in its bytes; a file newer than this code is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { digestValue } from '../env-digest.js';
import { startSandboxCloud } from '../index.js';
import { callSandboxApi } from '../sandbox-api-call.js';
import { sandboxFilesContain } from '../sandbox-fixture.contract.js';
import { DATABASE_FILE_NAME, openSandboxDatabase, SCHEMA_VERSION } from './database-file.js';
import { SCHEMA_V1 } from './schema-v1.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-sandbox-file-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const PASSWORD = 'v1-plaintext-canary-password';
const ENV_SECRET = 'v1-plaintext-canary-env';

/** A file as version 1 of the sandbox left it, in its default rollback journal (no WAL). */
function writeVersion1File(dataDir: string): void {
  const db = new Database(join(dataDir, DATABASE_FILE_NAME));
  db.exec(SCHEMA_V1);
  db.pragma('user_version = 1');
  db.prepare(`INSERT INTO servers VALUES ('s1', 'st', 'web-1', 'eu-1', 'small', 'debian-12', 'running', NULL, 0, 1000)`).run();
  db.prepare(`INSERT INTO databases VALUES ('d1', 'dt', 'shop-db', 's1', 'postgresql', '16', '16.4', 20, 'shop_db', ?, NULL, 0, 1000)`).run(PASSWORD);
  const config = { source: { image: 'nginx' }, build: null, command: null, port: 80, env: { DATABASE_URL: ENV_SECRET }, health_check_path: null };
  db.prepare(`INSERT INTO apps VALUES ('a1', 'at', 'shop', 's1', ?, 'running', 1, 'sha256:old', NULL, 0, 1000, 1000)`).run(JSON.stringify(config));
  db.close();
}

describe('sandbox cloud file', () => {
  it('moves a version-1 file to the current schema, keeping passwords in force only as hashes', async () => {
    const dataDir = tempDir();
    writeVersion1File(dataDir);
    expect(sandboxFilesContain(dataDir, PASSWORD)).toBe(true);
    const cloud = await startSandboxCloud({ dataDir, provisionMs: 0 });
    try {
      const login = await callSandboxApi(cloud.url, 'POST', '/v1/databases/d1/login', { username: 'shop_db', password: PASSWORD });
      expect(login.status).toBe(200);
      const app = (await callSandboxApi(cloud.url, 'GET', '/v1/apps/a1')).body.app;
      expect(app.env).toEqual({ DATABASE_URL: digestValue(ENV_SECRET) });
      const backup = (await callSandboxApi(cloud.url, 'POST', '/v1/databases/d1/backups', { client_token: 'b' })).body.backup;
      expect(backup).toMatchObject({ status: 'completed', checksum: expect.stringMatching(/^sha256:/) });
      expect(sandboxFilesContain(dataDir, PASSWORD)).toBe(false);
      expect(sandboxFilesContain(dataDir, ENV_SECRET)).toBe(false);
    } finally {
      await cloud.close();
    }
    const reopened = openSandboxDatabase(dataDir);
    expect(reopened.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(reopened.prepare('SELECT name FROM pragma_table_info(?)').all('databases')).not.toContainEqual({ name: 'password' });
    reopened.close();
  });

  it('refuses a file of a newer schema than it knows', () => {
    const dataDir = tempDir();
    const db = new Database(join(dataDir, DATABASE_FILE_NAME));
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openSandboxDatabase(dataDir)).toThrow(/newer than this cairn knows/);
  });
});
