/**
 * @module Crash safety at Scaleway (its double), by the crash test every vendor runs
 * (test/support/vendor-crash.ts). Scaleway takes no client token, lets two servers share a name,
 * and makes a server in several calls (create stopped, user data, power on): only the
 * `cairn-key=` tag stands between a lost answer and a second server, and a create found stopped
 * is finished rather than made again. The credentials travel as one JSON bundle in the variable.
 */
import { SCALEWAY_TEST_PROJECT, startScalewayDouble } from '../doubles/scaleway.js';
import { describeVendorCrashTest } from '../support/vendor-crash.js';

describeVendorCrashTest({
  vendor: 'scaleway',
  title: 'Scaleway',
  tokenEnv: 'SCALEWAY_CREDENTIALS',
  token: JSON.stringify({ secret_key: 'scaleway-crash-key', project_id: SCALEWAY_TEST_PROJECT }),
  regions: ['fr-par-1', 'nl-ams-1', 'pl-waw-1'],
  image: 'debian-12',
  sizes: ['DEV1-S', 'DEV1-M'],
  async start() {
    const double = await startScalewayDouble({ token: 'scaleway-crash-key', actionMs: 300, latencyMs: 20, slowAnswers: { operationIds: ['CreateServer'], ms: 400 } });
    return { ...double, held: () => double.servers().map((s) => ({ name: s.name, key: s.tags.find((t) => t.startsWith('cairn-key')), size: s.commercialType, running: s.state === 'running' })) };
  },
});
