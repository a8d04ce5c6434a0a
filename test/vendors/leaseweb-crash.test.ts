/**
 * @module Crash safety at Leaseweb (its double), by the crash test every vendor runs
 * (test/support/vendor-crash.ts). Leaseweb takes no client token and has no tags, so only the
 * key cairn writes into each instance's reference stands between a lost answer and a second
 * instance; a terminated instance stays listed as DESTROYED, so the crash test's count leaves
 * those out, as cairn does.
 */
import { readReference } from '../../src/drivers/leaseweb/reference.js';
import { startLeasewebDouble } from '../doubles/leaseweb.js';
import { describeVendorCrashTest } from '../support/vendor-crash.js';

describeVendorCrashTest({
  vendor: 'leaseweb',
  title: 'Leaseweb',
  tokenEnv: 'LEASEWEB_API_KEY',
  token: 'leaseweb-crash-key',
  regions: ['eu-west-3', 'eu-central-1', 'us-east-1'],
  image: 'debian-12',
  sizes: ['lsw.m3.large', 'lsw.m3.xlarge'],
  async start() {
    const double = await startLeasewebDouble({ token: 'leaseweb-crash-key', actionMs: 300, latencyMs: 20, slowAnswers: { operationIds: ['launchInstance'], ms: 400 } });
    return {
      ...double,
      held: () =>
        double.instances().filter((i) => i.state !== 'DESTROYED' && i.state !== 'DESTROYING').map((i) => {
          const { name, key } = readReference(i.reference);
          return { name, key, size: i.type, running: i.state === 'RUNNING' };
        }),
    };
  },
});
