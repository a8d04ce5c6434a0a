/**
 * @module Crash safety at Hetzner (its double), by the crash test every vendor runs
 * (test/support/vendor-crash.ts). Hetzner takes no client token, so this proves the label
 * idempotency: a create whose answer was lost is found by its `cairn-key` label, never made
 * twice or leaked.
 */
import { startHetznerDouble } from '../doubles/hetzner.js';
import { describeVendorCrashTest } from '../support/vendor-crash.js';

describeVendorCrashTest({
  vendor: 'hetzner',
  title: 'Hetzner',
  tokenEnv: 'HCLOUD_TOKEN',
  token: 'hetzner-crash-token',
  regions: ['fsn1', 'nbg1', 'hel1'],
  image: 'debian-12',
  sizes: ['cx22', 'cx32'],
  async start() {
    const double = await startHetznerDouble({ token: 'hetzner-crash-token', actionMs: 300, latencyMs: 20, slowAnswers: { operationIds: ['create_server'], ms: 400 } });
    return { ...double, held: () => double.servers().map((s) => ({ name: s.name, key: s.labels['cairn-key'], size: s.type, running: s.status === 'running' })) };
  },
});
