/**
 * @module examples/vendors/hetzner, applied with the real CLI against the Hetzner double (its
 * Provider pointed at the double with `spec.endpoint`): the servers converge, a resize is made
 * in place, a size Hetzner lacks is refused naming the valid ones, and a delete leaves nothing
 * at the vendor.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vendorApplySetup } from '../support/vendor-apply.js';
import { startHetznerDouble } from '../doubles/hetzner.js';

const TOKEN = 'hetzner-apply-token';
const setup = vendorApplySetup({ example: 'hetzner', title: 'Hetzner', env: { HCLOUD_TOKEN: TOKEN }, start: () => startHetznerDouble({ token: TOKEN, actionMs: 100 }) });
const { dir, apply } = setup;

describe('examples/vendors/hetzner', () => {
  it('applies and converges: three servers at Hetzner, each labelled with its key, one with its user data', async () => {
    const result = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 4 ready.');
    const servers = setup.double.servers();
    expect(servers.map((s) => `${s.name}:${s.location}:${s.type}:${s.status}`).sort()).toEqual(['web-ash:ash:cpx11:running', 'web-fsn:fsn1:cx22:running', 'web-nbg:nbg1:cx22:running']);
    expect(servers.every((s) => s.labels['cairn-key']?.startsWith('cairn-'))).toBe(true);
    // The user's cloud-config reaches the vendor with cairn's runtime key added to it.
    expect(servers.find((s) => s.name === 'web-fsn')?.userData, 'spec.userData reaches the vendor').toMatch(
      /^#cloud-config\npackages: \[ nginx \]\nssh_authorized_keys:\n {2}- ssh-ed25519 AAAA[A-Za-z0-9+/=]+ cairn-runtime:default\n$/,
    );
  });

  it('resizes in place, and refuses a size Hetzner lacks, naming the valid ones', async () => {
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: cx22', 'size: cx32'));
    const resized = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(resized.code, resized.stdout + resized.stderr).toBe(0);
    expect(setup.double.servers().map((s) => `${s.name}:${s.type}`).sort()).toEqual(['web-ash:cpx11', 'web-fsn:cx32', 'web-nbg:cx22']);

    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: cpx11', 'size: cx99'));
    const refused = await apply('apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('hetzner: size "cx99" is not offered in ash; sizes there: cpx11, cpx21, cpx31');
    expect(setup.double.servers().find((s) => s.name === 'web-ash')?.status, 'not powered off for a resize that cannot be made').toBe('running');
    expect(setup.double.servers()).toHaveLength(3);
  });

  it('deletes what it made: nothing left at the vendor', async () => {
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(setup.double.servers()).toEqual([]);
  });
});
