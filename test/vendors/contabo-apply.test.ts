/**
 * @module examples/vendors/contabo, applied with the real CLI against the Contabo double (its
 * Provider pointed at the double with `spec.endpoint`, which also serves the token endpoint):
 * the instances converge with their keys in their display names, a new size is refused saying
 * the server must be replaced (Contabo cannot resize in place) and changes nothing, and a delete
 * cancels every instance (they run on at Contabo until their term ends).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vendorApplySetup } from '../support/vendor-apply.js';
import { startContaboDouble } from '../doubles/contabo.js';

const SECRET = 'contabo-apply-secret';
const CREDENTIALS = JSON.stringify({ client_id: 'cairn-client', client_secret: SECRET, api_user: 'ops@example.com', api_password: 'api-password' });
const setup = vendorApplySetup({ example: 'contabo', title: 'Contabo', env: { CONTABO_CREDENTIALS: CREDENTIALS }, start: () => startContaboDouble({ token: SECRET, actionMs: 100 }) });
const { dir, apply } = setup;

describe('examples/vendors/contabo', () => {
  it('applies and converges: three instances at Contabo, each carrying its key in its display name', async () => {
    const result = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 4 ready.');
    const instances = setup.double.instances();
    expect(instances.map((i) => `${i.displayName.replace(/ \[.*/, '')}:${i.region}:${i.productId}:${i.status}`).sort()).toEqual(['web-eu-1:EU:V91:running', 'web-eu-2:EU:V91:running', 'web-us:US-east:V92:running']);
    expect(instances.every((i) => /^web-[a-z0-9-]+ \[cairn-key=cairn-[0-9a-f-]+\]$/.test(i.displayName))).toBe(true);
  });

  it('refuses a new size, saying the server must be replaced, and changes nothing', async () => {
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: V92', 'size: V94'));
    const refused = await apply('apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain("Contabo cannot change an instance's product in place");
    expect(setup.double.instances().map((i) => i.productId).sort()).toEqual(['V91', 'V91', 'V92']);
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: V94', 'size: V92'));
  });

  it('deletes by cancelling: cairn holds nothing, Contabo runs the instances to the end of their term', async () => {
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(setup.double.instances().map((i) => i.cancelled)).toEqual([true, true, true]);
    expect(setup.double.calls.filter((c) => c.operationId === 'cancelInstance')).toHaveLength(3);
  });
});
