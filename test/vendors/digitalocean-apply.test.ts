/**
 * @module examples/vendors/digitalocean, applied with the real CLI against the DigitalOcean double (its
 * Provider pointed at the double with `spec.endpoint`): the servers and the managed PostgreSQL
 * converge, a resize is made in place (powered off, resized, powered on), a size DigitalOcean
 * lacks is refused naming the valid ones, and a delete (the database's with
 * cairn.dev/skip-final-backup) leaves nothing at the vendor.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vendorApplySetup } from '../support/vendor-apply.js';
import { startDigitalOceanDouble } from '../doubles/digitalocean.js';

const TOKEN = 'digitalocean-apply-token';
const setup = vendorApplySetup({ example: 'digitalocean', title: 'DigitalOcean', env: { DIGITALOCEAN_TOKEN: TOKEN }, start: () => startDigitalOceanDouble({ token: TOKEN, actionMs: 100 }) });
const { dir, apply } = setup;

describe('examples/vendors/digitalocean', () => {
  it('applies and converges: three droplets and a managed PostgreSQL at DigitalOcean, each tagged with its key', async () => {
    const result = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 5 ready.');
    const droplets = setup.double.droplets();
    expect(droplets.map((s) => `${s.name}:${s.region}:${s.size}:${s.status}`).sort()).toEqual(['web-ams:ams3:s-1vcpu-1gb:active', 'web-fra:fra1:s-1vcpu-1gb:active', 'web-nyc:nyc3:s-2vcpu-2gb:active']);
    expect(droplets.every((s) => s.tags.some((t) => t.startsWith('cairn-key:cairn-')) && s.tags.includes('managed-by:cairn'))).toBe(true);
    expect(setup.double.clusters().map((c) => `${c.name}:${c.engine}:${c.version}:${c.region}:${c.size}:${c.status}`)).toEqual(['orders-db:pg:16:fra1:db-s-1vcpu-1gb:online']);
  });

  it('resizes in place, and refuses a size DigitalOcean lacks, naming the valid ones', async () => {
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: s-1vcpu-1gb', 'size: s-2vcpu-4gb'));
    const resized = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(resized.code, resized.stdout + resized.stderr).toBe(0);
    expect(setup.double.droplets().map((s) => `${s.name}:${s.size}:${s.status}`).sort()).toEqual(['web-ams:s-1vcpu-1gb:active', 'web-fra:s-2vcpu-4gb:active', 'web-nyc:s-2vcpu-2gb:active']);

    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: s-2vcpu-2gb', 'size: s-99vcpu'));
    const refused = await apply('apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('digitalocean: size "s-99vcpu" is not offered in nyc3; sizes there: s-1vcpu-1gb, s-1vcpu-2gb, s-2vcpu-2gb, s-2vcpu-4gb, s-4vcpu-8gb, c-2, g-2vcpu-8gb');
    expect(setup.double.droplets().find((s) => s.name === 'web-nyc')?.status, 'not powered off for a resize that cannot be made').toBe('active');
    expect(setup.double.droplets()).toHaveLength(3);
  });

  it('deletes what it made: nothing left at the vendor (the managed database without a final backup, which DigitalOcean cannot take on demand)', async () => {
    const database = join(dir, 'database.yaml');
    writeFileSync(database, readFileSync(database, 'utf8').replace('  labels: { team: shop }', '  labels: { team: shop }\n  annotations: { cairn.dev/skip-final-backup: "true" }'));
    const annotated = await apply('apply', '-f', database, '--auto-approve', '--wait');
    expect(annotated.code, annotated.stdout + annotated.stderr).toBe(0);
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), database, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(setup.double.droplets()).toEqual([]);
    expect(setup.double.clusters()).toEqual([]);
  });
});
