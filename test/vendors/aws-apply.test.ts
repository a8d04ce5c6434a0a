/**
 * @module examples/vendors/aws, applied with the real CLI against the AWS double (its Provider
 * pointed at the double with `spec.endpoint`, the access key as a JSON bundle in the
 * environment): the three instances converge in their regions, tagged with their keys, and the
 * RDS for PostgreSQL database becomes available; a resize stops, modifies and starts the
 * instance; an instance type EC2 lacks is refused naming the valid ones; a delete leaves nothing
 * at the vendor but the database's final snapshot, taken first.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, startAwsDouble } from '../doubles/aws/server.js';
import { vendorApplySetup } from '../support/vendor-apply.js';

const setup = vendorApplySetup({
  example: 'aws',
  title: 'AWS EC2',
  env: { AWS_CAIRN_CREDENTIALS: JSON.stringify({ access_key_id: AWS_ACCESS_KEY_ID, secret_access_key: AWS_SECRET_ACCESS_KEY, region: 'eu-west-1' }) },
  start: () => startAwsDouble({ actionMs: 100, pageSize: 5 }),
});
const { dir, apply } = setup;

describe('examples/vendors/aws', () => {
  it('applies and converges: three instances in their regions, each tagged with its key, and the RDS database', async () => {
    const result = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 5 ready.');
    expect(setup.double.rds.live().map((i) => `${i.tags['Name']}:${i.region}:${i.cls}:${i.version}:${i.status}:${i.tags['managed-by']}`)).toEqual(['orders-db:eu-west-1:db.t4g.micro:16.4:available:cairn']);
    const instances = setup.double.ec2.live();
    expect(instances.map((i) => `${i.tags['Name']}:${i.region}:${i.type}:${i.state}:${i.imageId}`).sort()).toEqual([
      'web-dub:eu-west-1:t3.micro:running:ami-0f9e8d7c6b5a40312', 'web-fra:eu-central-1:t3.micro:running:ami-0f9e8d7c6b5a40312', 'web-iad:us-east-1:t3.small:running:ami-0f9e8d7c6b5a40312',
    ]);
    expect(instances.every((i) => i.tags['cairn-key']?.startsWith('cairn-') && i.tags['managed-by'] === 'cairn' && i.clientToken === i.tags['cairn-key'])).toBe(true);
  });

  it('resizes by stop, modify and start, and refuses an instance type EC2 lacks, naming the valid ones', async () => {
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: t3.micro', 'size: t3.medium'));
    const resized = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(resized.code, resized.stdout + resized.stderr).toBe(0);
    expect(setup.double.ec2.live().map((i) => `${i.tags['Name']}:${i.type}:${i.state}`).sort()).toEqual(['web-dub:t3.medium:running', 'web-fra:t3.micro:running', 'web-iad:t3.small:running']);
    expect(setup.double.calls.filter((c) => c.action === 'ModifyInstanceAttribute')).toHaveLength(1);

    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: t3.micro', 'size: x9.colossal'));
    const refused = await apply('apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('aws: size "x9.colossal" is not offered in eu-central-1; sizes there: t3.nano, t3.micro, t3.small, t3.medium, c5.xlarge');
    expect(setup.double.calls.filter((c) => c.action === 'ModifyInstanceAttribute'), 'only the one resize that could be made was sent').toHaveLength(1);
    expect(setup.double.ec2.live()).toHaveLength(3);
  });

  it('deletes what it made: nothing left at the vendor but the final snapshot of the database, taken first', async () => {
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), join(dir, 'database.yaml'), '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(setup.double.ec2.live()).toEqual([]);
    expect(setup.double.rds.live()).toEqual([]);
    expect(setup.double.rds.allSnapshots().map((s) => `${s.instanceId}:${s.status}`)).toEqual([expect.stringMatching(/^cairn-[0-9a-f]{24}:available$/)]);
  });
});
