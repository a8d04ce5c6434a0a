/**
 * @module Crash safety at Exoscale (its double), by the crash test every vendor runs
 * (test/support/vendor-crash.ts). Exoscale takes no client token and lets two instances share a
 * name, so only the `cairn-key` label stands between a lost answer and a second instance: this
 * proves it holds. The credentials travel as one JSON bundle in the environment variable.
 */
import { startExoscaleDouble } from '../doubles/exoscale.js';
import { describeVendorCrashTest } from '../support/vendor-crash.js';

const KEY = 'EXOcrashkey';
const SECRET = 'exoscale-crash-secret';

describeVendorCrashTest({
  vendor: 'exoscale',
  title: 'Exoscale',
  tokenEnv: 'EXOSCALE_CREDENTIALS',
  token: JSON.stringify({ api_key: KEY, api_secret: SECRET }),
  regions: ['ch-gva-2', 'de-fra-1', 'at-vie-1'],
  image: 'debian-12',
  sizes: ['standard.small', 'standard.medium'],
  async start() {
    const double = await startExoscaleDouble({ token: KEY, secret: SECRET, actionMs: 300, latencyMs: 20, slowAnswers: { operationIds: ['create-instance'], ms: 400 } });
    return { ...double, held: () => double.instances().map((i) => ({ name: i.name, key: i.labels['cairn-key'], size: i.size, running: i.state === 'running' })) };
  },
});
