/**
 * @module Crash safety at Contabo (its double), by the crash test every vendor runs
 * (test/support/vendor-crash.ts). Contabo takes no client token and has no labels on instances,
 * so only the key in the display name stands between a lost answer and a second instance: this
 * proves it holds. Contabo cannot resize in place, so every run asks for the same product; a
 * cancelled instance (cairn's delete) runs on at Contabo but is not held for cairn.
 */
import { readDisplayName } from '../../src/drivers/contabo/display-name.js';
import { startContaboDouble } from '../doubles/contabo.js';
import { describeVendorCrashTest } from '../support/vendor-crash.js';

const SECRET = 'contabo-crash-secret';

describeVendorCrashTest({
  vendor: 'contabo',
  title: 'Contabo',
  tokenEnv: 'CONTABO_CREDENTIALS',
  // credentialsRef.env holding a JSON object is the whole credential bundle
  token: JSON.stringify({ client_id: 'cairn-client', client_secret: SECRET, api_user: 'ops@example.com', api_password: 'api-password' }),
  regions: ['EU', 'US-east', 'UK'],
  image: 'debian-12',
  sizes: ['V91', 'V91'],
  async start() {
    const double = await startContaboDouble({ token: SECRET, actionMs: 300, latencyMs: 20, slowAnswers: { operationIds: ['createInstance'], ms: 400 } });
    return {
      ...double,
      held: () =>
        double.instances().filter((i) => !i.cancelled).map((i) => {
          const { name, key } = readDisplayName(i.displayName);
          return { name, key, size: i.productId, running: i.status === 'running' };
        }),
    };
  },
});
