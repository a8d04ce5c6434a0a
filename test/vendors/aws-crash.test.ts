/**
 * @module Crash safety at AWS (its EC2 double), by the crash test every vendor runs
 * (test/support/vendor-crash.ts). Two guards stand between a lost answer and a second instance:
 * EC2's ClientToken (cairn's key: the same token answers the first instance) and the
 * `cairn-key` tag a create first looks for; this proves they hold. The access key travels as one
 * JSON bundle in the environment variable.
 */
import { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, startAwsDouble } from '../doubles/aws/server.js';
import { describeVendorCrashTest } from '../support/vendor-crash.js';

describeVendorCrashTest({
  vendor: 'aws',
  title: 'AWS EC2',
  tokenEnv: 'AWS_CAIRN_CREDENTIALS',
  token: JSON.stringify({ access_key_id: AWS_ACCESS_KEY_ID, secret_access_key: AWS_SECRET_ACCESS_KEY, region: 'eu-west-1' }),
  regions: ['eu-west-1', 'eu-central-1', 'us-east-1'],
  image: 'debian-12',
  sizes: ['t3.micro', 't3.small'],
  async start() {
    const double = await startAwsDouble({ actionMs: 300, latencyMs: 20, pageSize: 5, slowAnswers: { actions: ['RunInstances'], ms: 400 } });
    return {
      ...double,
      held: () => double.ec2.live().map((i) => ({ name: i.tags['Name'] ?? '', key: i.tags['cairn-key'], size: i.type, running: i.state === 'running' })),
    };
  },
});
