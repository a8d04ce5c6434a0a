/**
 * @module Crash safety at Tencent Cloud (its double), by the crash test every vendor runs
 * (test/support/vendor-crash.ts). Two guards stand between a lost answer and a second instance
 * here: the `cairn-key` tag a create looks for first, and the key as RunInstances' ClientToken.
 * The SecretId and SecretKey travel as one JSON bundle in the environment variable.
 */
import { startTencentDouble, TENCENT_TEST_SECRET_ID } from '../doubles/tencent/index.js';
import { describeVendorCrashTest } from '../support/vendor-crash.js';

const SECRET_KEY = 'tencent-crash-secret-key';

describeVendorCrashTest({
  vendor: 'tencent',
  title: 'Tencent Cloud',
  tokenEnv: 'TENCENTCLOUD_CREDENTIALS',
  token: JSON.stringify({ secret_id: TENCENT_TEST_SECRET_ID, secret_key: SECRET_KEY }),
  regions: ['ap-guangzhou-3', 'ap-singapore-1', 'eu-frankfurt-1'],
  image: 'debian-12',
  sizes: ['S5.SMALL1', 'S5.SMALL2'],
  async start() {
    const double = await startTencentDouble({ token: SECRET_KEY, actionMs: 300, latencyMs: 20, slowAnswers: { operationIds: ['RunInstances'], ms: 400 } });
    return { ...double, held: () => double.instances().map((i) => ({ name: i.name, key: i.tags['cairn-key'], size: i.type, running: i.state === 'RUNNING' })) };
  },
});
