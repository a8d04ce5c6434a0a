/**
 * @module Crash safety at Linode (its double), by the crash test every vendor runs
 * (test/support/vendor-crash.ts). Linode takes no client token, so only the `cairn-key` tag
 * (found through `X-Filter`) stands between a lost answer and a second Linode; its unique labels
 * would refuse a second one by the same name, but this proves the tag finds the first before it
 * comes to that.
 */
import { startLinodeDouble } from '../doubles/linode.js';
import { describeVendorCrashTest } from '../support/vendor-crash.js';

describeVendorCrashTest({
  vendor: 'linode',
  title: 'Linode',
  tokenEnv: 'LINODE_TOKEN',
  token: 'linode-crash-token',
  regions: ['eu-central', 'eu-west', 'us-east'],
  image: 'debian-12',
  sizes: ['g6-nanode-1', 'g6-standard-1'],
  async start() {
    const double = await startLinodeDouble({ token: 'linode-crash-token', actionMs: 300, latencyMs: 20, slowAnswers: { operationIds: ['post-linode-instance'], ms: 400 } });
    return { ...double, held: () => double.linodes().map((l) => ({ name: l.label, key: l.tags.find((t) => t.startsWith('cairn-key')), size: l.type, running: l.status === 'running' })) };
  },
});
