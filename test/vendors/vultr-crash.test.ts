/**
 * @module Crash safety at Vultr (its double), by the crash test every vendor runs
 * (test/support/vendor-crash.ts). Vultr takes no client token and lets two instances share a
 * label, so only the `cairn-key:` tag stands between a lost answer and a second instance: this
 * proves it holds.
 */
import { startVultrDouble } from '../doubles/vultr.js';
import { describeVendorCrashTest } from '../support/vendor-crash.js';

describeVendorCrashTest({
  vendor: 'vultr',
  title: 'Vultr',
  tokenEnv: 'VULTR_API_KEY',
  token: 'vultr-crash-token',
  regions: ['fra', 'ams', 'ewr'],
  image: 'debian-12',
  sizes: ['vc2-1c-1gb', 'vc2-1c-2gb'],
  async start() {
    const double = await startVultrDouble({ token: 'vultr-crash-token', actionMs: 300, latencyMs: 20, slowAnswers: { operationIds: ['create-instance'], ms: 400 } });
    return { ...double, held: () => double.instances().map((i) => ({ name: i.label, key: i.tags.find((t) => t.startsWith('cairn-key')), size: i.plan, running: i.status === 'active' && i.power === 'running' })) };
  },
});
