/**
 * The SSH runtime's view of a host, against a real sshd on loopback: the facts found in one
 * round trip, records written whole and read back, hostile record names refused before
 * anything is sent, and the cairn-side index surviving a new process (read from its file).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFacts } from '../src/drivers/ssh/remote-host.js';
import { RuntimeIndex } from '../src/drivers/ssh/runtime-index.js';
import { startSshRuntimeFixture, type SshRuntimeFixture } from './support/ssh-runtime-fixture.js';


describe('the SSH runtime on a host', () => {
  let fixture: SshRuntimeFixture;

  beforeAll(async () => {
    fixture = await startSshRuntimeFixture();
  });

  afterAll(async () => {
    await fixture?.cleanup();
  });

  it('finds the runtime directory from the session environment, and what the host offers', async () => {
    const host = await fixture.options.hosts.host(fixture.target);
    expect(host.facts.runtimeDir).toBe(fixture.runtimeDir);
    expect(host.facts.root).toBe(process.getuid?.() === 0);
    expect(host.facts.packageManager).toBe(existsSync('/usr/bin/apt-get') ? 'apt-get' : host.facts.packageManager);
    expect(existsSync(join(fixture.runtimeDir, 'records', 'databases'))).toBe(true);
    expect(await fixture.options.hosts.host(fixture.target)).toBe(host);
  });

  it('writes records whole, reads every one back, and drops them', async () => {
    const host = await fixture.options.hosts.host(fixture.target);
    await Promise.all([1, 2, 3].map((n) => host.putRecord('apps', `app-${n}`, { id: `app-${n}`, note: 'it\'s "quoted"\n$(no)' })));
    const records = await host.records<{ id: string; note: string }>('apps');
    expect(records.map((r) => r.id).sort()).toEqual(['app-1', 'app-2', 'app-3']);
    expect(records[0]?.note).toBe('it\'s "quoted"\n$(no)');
    await host.dropRecord('apps', 'app-2');
    await host.dropRecord('apps', 'app-2');
    expect(readdirSync(join(fixture.runtimeDir, 'records', 'apps')).sort()).toEqual(['app-1.json', 'app-3.json']);
  });

  it('refuses a record name that could leave the runtime directory', async () => {
    const host = await fixture.options.hosts.host(fixture.target);
    for (const name of ['../escape', 'a/b', '', '.hidden', 'x y', 'a..b']) {
      expect(() => host.path('records', 'apps', name)).toThrow(/refusing the path part/);
    }
  });

  it('keeps its index in the data dir, read again by a new process', () => {
    const entry = { kind: 'database' as const, id: 'db-1', key: 'k-1', serverId: 'srv', target: fixture.target };
    fixture.options.index.put(entry);
    const raw = JSON.parse(readFileSync(join(fixture.dataDir, 'ssh-runtime', 'index.json'), 'utf8')) as { entries: unknown[] };
    expect(raw.entries).toEqual([entry]);
    expect(fixture.options.index.find('database', { key: 'k-1' })).toEqual(entry);
    expect(fixture.options.index.find('database', { key: 'other', externalId: 'db-1' })).toEqual(entry);
    expect(fixture.options.index.find('app', { key: 'k-1' })).toBeUndefined();
    fixture.options.index.remove('database', 'db-1');
    expect(RuntimeIndex.of(fixture.dataDir).find('database', { key: 'k-1' })).toBeUndefined();
  });
});

describe('host facts', () => {
  it('reads the facts script\'s answer, and refuses a relative runtime directory', () => {
    expect(parseFacts('dir=/srv/cairn/\nuid=0\nsystemd=1\npm=dnf\npython3=/usr/bin/python3\n')).toEqual({
      runtimeDir: '/srv/cairn', root: true, systemd: true, packageManager: 'dnf', python3: '/usr/bin/python3',
    });
    expect(parseFacts('dir=/var/lib/cairn\nuid=1000\n')).toMatchObject({ root: false, systemd: false, packageManager: null, python3: null });
    expect(() => parseFacts('dir=relative\nuid=0\n')).toThrow(/absolute runtime directory/);
  });
});
