/**
 * @module Crash safety at Google Cloud (its double), by the crash test every vendor runs
 * (test/support/vendor-crash.ts). An insert killed before its answer is found by the
 * `cairn-key` label (and a repeated insert is deduped by its requestId): this proves no kill
 * leaves a duplicate or a leaked instance. The double is started first, since the service-account
 * key the cairn processes get names its token endpoint (`token_uri`).
 */
import { startGcpDouble, testServiceAccountKey } from '../doubles/gcp/server.js';
import { describeVendorCrashTest } from '../support/vendor-crash.js';

const double = await startGcpDouble({ actionMs: 300, latencyMs: 20, maxPerPage: 5, slowAnswers: { operationIds: ['compute.instances.insert'], ms: 400 } });

describeVendorCrashTest({
  vendor: 'gcp',
  title: 'Google Cloud',
  tokenEnv: 'GCP_SERVICE_ACCOUNT_KEY',
  token: testServiceAccountKey(double.url),
  regions: ['europe-west1-b', 'europe-west1-c', 'us-central1-a'],
  image: 'debian-12',
  sizes: ['e2-small', 'e2-medium'],
  start() {
    return Promise.resolve({
      ...double,
      held: () => double.instances().map((i) => ({ name: i.name, key: i.labels['cairn-key'], size: i.machineType, running: i.status === 'RUNNING' })),
    });
  },
});
