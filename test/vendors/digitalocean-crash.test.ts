/**
 * @module Crash safety at DigitalOcean (its double), by the crash test every vendor runs
 * (test/support/vendor-crash.ts). DigitalOcean takes no client token and, unlike Hetzner, lets
 * two droplets share a name, so only the `cairn-key:` tag stands between a lost answer and a
 * second droplet: this proves it holds.
 */
import { startDigitalOceanDouble } from '../doubles/digitalocean.js';
import { describeVendorCrashTest } from '../support/vendor-crash.js';

describeVendorCrashTest({
  vendor: 'digitalocean',
  title: 'DigitalOcean',
  tokenEnv: 'DIGITALOCEAN_TOKEN',
  token: 'digitalocean-crash-token',
  regions: ['fra1', 'ams3', 'nyc3'],
  image: 'debian-12-x64',
  sizes: ['s-1vcpu-1gb', 's-1vcpu-2gb'],
  async start() {
    const double = await startDigitalOceanDouble({ token: 'digitalocean-crash-token', actionMs: 300, latencyMs: 20, slowAnswers: { operationIds: ['droplets_create'], ms: 400 } });
    return { ...double, held: () => double.droplets().map((d) => ({ name: d.name, key: d.tags.find((t) => t.startsWith('cairn-key')), size: d.size, running: d.status === 'active' })) };
  },
});
