/** @module Tests of `cairn ssh-keys runtime` through the real executable: show, rotate (audited), retire, and clear refusals. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../../../test/support/cairn-process.js';
import { RuntimeKeys } from '../../ssh-keys/runtime-key.js';
import { Store } from '../../store/store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-ssh-keys-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function withStore<T>(work: (store: Store) => T): T {
  const store = Store.open(dir, { env: {} });
  try {
    return work(store);
  } finally {
    store.close();
  }
}

describe('cairn ssh-keys runtime', () => {
  it('shows the key (made on first need), rotates it keeping the previous one, and retires that', async () => {
    const shown = await runCairn(['ssh-keys', 'runtime', '--data-dir', dir]);
    expect(shown.code, shown.stderr).toBe(0);
    const current = withStore((store) => new RuntimeKeys(store).runtimeKey('default'));
    expect(shown.stdout).toBe(`current:  ${current.fingerprint}\n${current.publicKey}\n`);
    expect(shown.stdout).not.toContain('PRIVATE');

    const rotated = await runCairn(['ssh-keys', 'runtime', '--rotate', '--data-dir', dir]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const keys = withStore((store) => new RuntimeKeys(store).runtimeKeys('default'));
    expect(keys.previous).toEqual(current);
    expect(rotated.stdout).toContain(`current:  ${keys.current.fingerprint}\n${keys.current.publicKey}\nprevious: ${current.fingerprint} (still valid until retired)\n${current.publicKey}\n`);
    expect(withStore((store) => store.auditLog.list('default', { limit: 10 }).items.map((e) => `${e.actor} ${e.action}`))).toEqual(['cli ssh_runtime_key.rotate']);

    const again = await runCairn(['ssh-keys', 'runtime', '--rotate', '--data-dir', dir]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('retire the previous key first');

    const retired = await runCairn(['ssh-keys', 'runtime', '--retire-previous', '--data-dir', dir]);
    expect(retired.code, retired.stderr).toBe(0);
    expect(retired.stdout).toBe(`retired the previous key ${current.fingerprint}\ncurrent:  ${keys.current.fingerprint}\n${keys.current.publicKey}\n`);
  });

  it('names a tenant that does not exist', async () => {
    const refused = await runCairn(['ssh-keys', 'runtime', '--tenant', 'nobody', '--data-dir', dir]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('no tenant is named "nobody"');
  });
});
