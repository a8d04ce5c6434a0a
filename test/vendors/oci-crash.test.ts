/**
 * @module Crash safety at OCI (its double), by the crash test every vendor runs
 * (test/support/vendor-crash.ts): the real CLI, killed mid-apply while the double holds back its
 * answers to launches, never leaves two instances of a name. Two things stand between a lost
 * answer and a second instance: the `opc-retry-token` (the key) OCI dedupes launches by, and
 * the `cairn-key` freeform tag every create first looks for. The credentials (an API signing
 * key) travel as one JSON bundle in the environment variable.
 */
import { ociDoubleCredentials, startOciDouble } from '../doubles/oci/server.js';
import { describeVendorCrashTest } from '../support/vendor-crash.js';

describeVendorCrashTest({
  vendor: 'oci',
  title: 'OCI',
  tokenEnv: 'OCI_CREDENTIALS',
  token: JSON.stringify(ociDoubleCredentials()),
  regions: ['eu-frankfurt-1-ad-1', 'eu-frankfurt-1-ad-2', 'eu-frankfurt-1-ad-3'],
  image: 'debian-12',
  sizes: ['VM.Standard2.1', 'VM.Standard.E4.Flex'],
  async start() {
    const double = await startOciDouble({ actionMs: 300, latencyMs: 20, slowAnswers: { operationIds: ['LaunchInstance'], ms: 400 } });
    return {
      ...double,
      held: () => double.instances().filter((i) => i.state !== 'TERMINATING').map((i) => ({ name: i.displayName, key: i.freeformTags['cairn-key'], size: i.shape, running: i.state === 'RUNNING' })),
    };
  },
});
