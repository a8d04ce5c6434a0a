/**
 * @module examples/vendors/ionos, applied with the real CLI against the IONOS double (its
 * Provider pointed at the double with `spec.endpoint`): the servers and the managed PostgreSQL
 * (on the Frankfurt data center's LAN) converge in one `cairn-<location>` data center per
 * location, a resize is made in place (new cores and RAM on
 * the same server), a size a location cannot hold is refused naming the ones it can, and a delete
 * (the database's with cairn.dev/skip-final-backup) leaves nothing at the vendor, boot volumes
 * included.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vendorApplySetup } from '../support/vendor-apply.js';
import { startIonosDouble } from '../doubles/ionos.js';
import { storedBytes } from '../support/store-engine.js';

const TOKEN = 'ionos-apply-token';
const setup = vendorApplySetup({ example: 'ionos', title: 'IONOS', env: { IONOS_TOKEN: TOKEN }, start: () => startIonosDouble({ token: TOKEN, actionMs: 100 }) });
const { dir, apply } = setup;

describe('examples/vendors/ionos', () => {
  it('applies and converges: three servers and a managed PostgreSQL, one data center per location, no image password kept by cairn', async () => {
    const result = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 5 ready.');
    expect(setup.double.postgresClusters().map((c) => `${c.displayName.replace(/ \[cairn-key=.*\]$/, '')}:${c.postgresVersion}:${c.location}:${c.cores}/${c.ram}:${c.state}:${c.connection.cidr}`)).toEqual([
      'orders-db:16:de/fra:2/4096:AVAILABLE:192.168.240.10/24',
    ]);
    const servers = setup.double.servers();
    expect(servers.map((s) => `${s.name.replace(/ \[cairn-key=.*\]$/, '')}:${s.location}:${s.cores}/${s.ram}:${s.vmState}:${s.volume.imageAlias}`).sort()).toEqual([
      'web-fra:de/fra:1/2048:RUNNING:debian:12', 'web-lhr:gb/lhr:2/4096:RUNNING:debian:12', 'web-txl:de/txl:1/2048:RUNNING:debian:12',
    ]);
    expect(servers.every((s) => / \[cairn-key=.+\]$/.test(s.name))).toBe(true);
    expect(setup.double.datacenters().map((dc) => dc.name).sort()).toEqual(['cairn-de/fra', 'cairn-de/txl', 'cairn-gb/lhr']);
    const stored = storedBytes(setup.dataDir).toString('latin1');
    expect(stored.length).toBeGreaterThan(0);
    for (const s of servers) expect(stored.includes(s.volume.imagePassword), `image password of ${s.name} in cairn's store`).toBe(false);
  });

  it('resizes in place, and refuses a size IONOS lacks, naming the valid ones', async () => {
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('region: de/fra\n  size: e-1c-2gb', 'region: de/fra\n  size: e-2c-8gb'));
    const resized = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(resized.code, resized.stdout + resized.stderr).toBe(0);
    expect(setup.double.servers().map((s) => `${s.location}:${s.cores}/${s.ram}:${s.vmState}`).sort()).toEqual(['de/fra:2/8192:RUNNING', 'de/txl:1/2048:RUNNING', 'gb/lhr:2/4096:RUNNING']);

    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: e-2c-4gb', 'size: e-99c-1tb'));
    const refused = await apply('apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('ionos: size "e-99c-1tb" is not offered in gb/lhr; sizes there: e-1c-2gb, e-2c-4gb, e-2c-8gb, e-4c-8gb, e-4c-16gb, e-8c-32gb');
    expect(setup.double.calls.filter((c) => c.operationId === 'datacentersServersPatch'), 'only the one resize that could be made was sent').toHaveLength(1);
    expect(setup.double.servers()).toHaveLength(3);
  });

  it('deletes what it made: nothing left at the vendor (the managed database without a final backup, which IONOS cannot take on demand)', async () => {
    const database = join(dir, 'database.yaml');
    writeFileSync(database, readFileSync(database, 'utf8').replace('  labels: { team: shop }', '  labels: { team: shop }\n  annotations: { cairn.dev/skip-final-backup: "true" }'));
    const annotated = await apply('apply', '-f', database, '--auto-approve', '--wait');
    expect(annotated.code, annotated.stdout + annotated.stderr).toBe(0);
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), database, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(setup.double.servers()).toEqual([]);
    expect(setup.double.postgresClusters()).toEqual([]);
    expect(setup.double.orphanVolumes()).toEqual([]);
  });
});
