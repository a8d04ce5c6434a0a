/**
 * @module The aws driver, through the unmodified AWS SDK v3, against a stateful double of EC2
 * that speaks its Query wire format (SigV4-signed form posts, XML answers) and checks every
 * request and answer against AWS's botocore model: the shared driver contract, RunInstances'
 * ClientToken and the `cairn-key` tag (a lost answer found again, never a second instance),
 * images resolved by name per region, catalog lists read across NextToken pages, refused keys
 * and sizes said plainly (before anything is sent), user data arriving intact, resize by stop →
 * ModifyInstanceAttribute → start, 30% faults absorbed, throttling waited out, the outbound
 * guard refusing a loopback endpoint, and the validator refusing what is outside the model.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { awsVendor } from '../../src/drivers/aws/index.js';
import { parseServerId, readStatus } from '../../src/drivers/aws/wire-format.js';
import type { DriverConfig } from '../../src/drivers/contract.js';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, startAwsDouble, type AwsDouble, type AwsDoubleOptions } from '../doubles/aws/server.js';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '../doubles/aws/sigv4-check.js';
import { BotocoreService } from '../support/botocore-validator.js';
import { expectRuntimeOverSsh } from '../support/ssh-runtime-expectation.js';
import { vendorDocument } from '../support/vendor-double.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { expectSpentKeyRefused } from '../support/spent-key-case.js';
import { isAwsError } from '../../src/drivers/aws/sdk-call.js';

const USER_DATA = '#cloud-config\nssh_authorized_keys:\n  - "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG2Bv9nS6 ops@example.com"\n';
const KEYS = { access_key_id: AWS_ACCESS_KEY_ID, secret_access_key: AWS_SECRET_ACCESS_KEY, region: 'eu-west-1' };

const setup = vendorTestSetup('aws', 'AWS EC2', (options: AwsDoubleOptions) => startAwsDouble(options));
const double = setup.double;
const config = (url: string, overrides: Partial<DriverConfig> = {}): DriverConfig => setup.config(url, { credentials: KEYS, ...overrides });

runCloudDriverContract('aws', async () => {
  const d = await double();
  return { driver: await awsVendor.createCloudDriver(config(d.url)), cleanup: () => Promise.resolve() };
});

function actions(d: AwsDouble, action: string): number {
  return d.calls.filter((c) => c.action === action).length;
}

describe('aws driver', () => {
  const desired = { name: 'web-1', region: 'eu-west-1', size: 't3.micro', image: 'debian-12' };

  it('launches with its key as ClientToken and tag; a create whose answer was lost is found again, not made twice', async () => {
    const d = await double({ slowAnswers: { actions: ['RunInstances'], ms: 400 } });
    const impatient = await awsVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 150 }));
    await expect(impatient.servers.create('cairn-lost-answer-0', { ...desired, image: 'ami-0f9e8d7c6b5a40312' })).rejects.toThrow(/create instance "web-1": no answer within 150 ms/);
    expect(actions(d, 'RunInstances'), 'sent again under the same ClientToken after each lost answer').toBe(4);
    const patient = await awsVendor.createCloudDriver(config(d.url));
    const found = await patient.servers.create('cairn-lost-answer-0', desired);
    const live = d.ec2.live();
    expect(live).toHaveLength(1);
    expect(actions(d, 'RunInstances'), 'found by its tag: not launched again').toBe(4);
    expect(live[0]).toMatchObject({ clientToken: 'cairn-lost-answer-0', region: 'eu-west-1', type: 't3.micro', imageId: 'ami-0f9e8d7c6b5a40312', tags: { Name: 'web-1', 'cairn-key': 'cairn-lost-answer-0', 'managed-by': 'cairn' } });
    expect(found).toMatchObject({ id: `eu-west-1/${live[0]!.id}`, clientToken: 'cairn-lost-answer-0', name: 'web-1', region: 'eu-west-1', size: 't3.micro' });
    expect(parseServerId(found.id)).toEqual({ region: 'eu-west-1', instanceId: live[0]!.id });
  });

  it('gets the first instance back from EC2 for a repeated ClientToken, even when the tag lookup is skipped', async () => {
    const d = await double();
    const driver = await awsVendor.createCloudDriver(config(d.url));
    const first = await driver.servers.create('cairn-token-0', desired);
    // A second create whose tag lookup ran before the first launch landed: EC2's ClientToken answers the same instance.
    d.ec2.instances[0]!.tags = {};
    const again = await driver.servers.create('cairn-token-0', desired);
    expect(again.id).toBe(first.id);
    expect(d.ec2.live()).toHaveLength(1);
    expect(actions(d, 'RunInstances')).toBe(2);
  });

  it('says a key is spent when EC2 answers its ClientToken with an instance since terminated, and launches nothing', async () => {
    const d = await double({ actionMs: 20 });
    await expectSpentKeyRefused(await awsVendor.createCloudDriver(config(d.url)), desired, { live: () => d.ec2.live(), creates: () => actions(d, 'RunInstances') });
  });

  it("knows AWS's error code as the SDK threw it and as the cause of cairn's mapped error", () => {
    const taken = Object.assign(new Error('The DB instance already exists'), { name: 'DBInstanceAlreadyExists' });
    expect(isAwsError(taken, 'DBInstanceAlreadyExists')).toBe(true);
    expect(isAwsError(new VendorRejectedError('aws rds: create DB instance: taken', { cause: taken }), 'DBInstanceAlreadyExists')).toBe(true);
    expect(isAwsError(new VendorRejectedError('aws rds: create DB instance: taken', { cause: taken }), 'DBInstanceNotFound')).toBe(false);
    expect(isAwsError(new VendorRejectedError('no cause'), 'VendorRejected')).toBe(false);
  });

  it('maps EC2 states, and keeps its ids with their region', () => {
    expect(readStatus('pending')).toBe('provisioning');
    expect(readStatus('running')).toBe('running');
    expect(readStatus('stopping')).toBe('stopping');
    expect(readStatus('stopped')).toBe('stopped');
    expect(readStatus('shutting-down')).toBe('deleting');
    expect(readStatus('exploded')).toBe('error');
    expect(parseServerId('us-east-1/i-0123456789abcdef0')).toEqual({ region: 'us-east-1', instanceId: 'i-0123456789abcdef0' });
    expect(parseServerId('i-0123456789abcdef0')).toBeUndefined();
  });

  it('reads regions, instance types and their offerings across NextToken pages, once; resolves an image name per region to the newest AMI', async () => {
    const d = await double({ pageSize: 2 });
    const driver = await awsVendor.createCloudDriver(config(d.url));
    const regions = await driver.regions();
    expect(regions.map((r) => r.slug)).toEqual(['eu-west-1', 'eu-central-1', 'us-east-1', 'us-west-2', 'ap-northeast-1']);
    const sizes = await driver.sizes();
    expect(sizes).toHaveLength(7);
    expect(sizes.find((s) => s.slug === 'c5d.large')).toEqual({ slug: 'c5d.large', vcpus: 2, memoryMb: 4096, diskGb: 50, priceMonthly: 0, regions: ['us-east-1'] });
    expect(sizes.find((s) => s.slug === 'm5.large')).toEqual({ slug: 'm5.large', vcpus: 2, memoryMb: 8192, diskGb: 0, priceMonthly: 0, regions: ['eu-west-1', 'us-east-1'] });
    expect(d.calls.filter((c) => c.action === 'DescribeInstanceTypes').map((c) => c.region), "eu-west-1's 6 types, 2 a page; c5d.large where it is offered").toEqual(['eu-west-1', 'eu-west-1', 'eu-west-1', 'us-east-1']);
    expect(new Set(d.calls.filter((c) => c.action === 'DescribeInstanceTypeOfferings').map((c) => c.region)).size, 'offerings read in each region').toBe(5);
    await driver.sizes();
    expect(actions(d, 'DescribeInstanceTypes'), 'the catalog is cached').toBe(4);
    await driver.servers.create('cairn-image-0', desired);
    await driver.servers.create('cairn-image-1', { ...desired, name: 'web-2', image: 'ubuntu-24.04' });
    await driver.servers.create('cairn-image-2', { ...desired, name: 'web-3' });
    expect(d.ec2.live().map((i) => i.imageId)).toEqual(['ami-0f9e8d7c6b5a40312', 'ami-01234abcd5678ef90', 'ami-0f9e8d7c6b5a40312']);
    expect(actions(d, 'DescribeImages'), 'each name resolved once per region').toBe(2);
  });

  it('says plainly when the key is refused, and refuses a size, region or image EC2 lacks before launching anything', async () => {
    const d = await double();
    const wrongId = await awsVendor.createCloudDriver(config(d.url, { credentials: { ...KEYS, access_key_id: 'AKIAWRONGWRONGWRONG1' } }));
    expect(await wrongId.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(/AuthFailure: AWS was not able to validate the provided access credentials: the access key was refused; check the access key id/) });
    const wrongSecret = await awsVendor.createCloudDriver(config(d.url, { credentials: { ...KEYS, secret_access_key: 'not-the-secret' } }));
    expect(await wrongSecret.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(/SignatureDoesNotMatch: The request signature we calculated does not match/) });
    await expect(wrongSecret.servers.create('cairn-k-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    const driver = await awsVendor.createCloudDriver(config(d.url));
    expect(await driver.testCredentials()).toEqual({ ok: true, message: `aws: the access key is accepted at ${d.url} (eu-west-1)` });
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 'x9.huge' })).rejects.toThrow(
      new VendorRejectedError('aws: size "x9.huge" is not offered in eu-west-1; sizes there: t3.nano, t3.micro, t3.small, t3.medium, m5.large, c5.xlarge', { field: 'size' }),
    );
    await expect(driver.servers.create('cairn-k-2', { ...desired, region: 'eu-south-1' })).rejects.toThrow(/region "eu-south-1" is not offered; regions: eu-west-1, eu-central-1,/);
    await expect(driver.servers.create('cairn-k-3', { ...desired, image: 'windows-95' })).rejects.toMatchObject({ field: 'image', message: expect.stringContaining('image "windows-95" is neither an AMI id') });
    expect(actions(d, 'RunInstances'), 'nothing launched for a size, region or image that does not exist').toBe(0);
    await expect(awsVendor.createCloudDriver({ ...config(d.url), credentials: { access_key_id: AWS_ACCESS_KEY_ID } })).rejects.toThrow(/aws needs credentials with "access_key_id" and "secret_access_key".*missing: secret_access_key/);
    expect(awsVendor.credentialFields.map((f) => f.name)).toEqual(['access_key_id', 'secret_access_key', 'session_token', 'region']);
  });

  it('signs with a temporary key\'s session token, and says plainly when it is missing', async () => {
    const d = await double({ sessionToken: 'FwoGZXIvYXdzEXAMPLE' });
    const temporary = await awsVendor.createCloudDriver(config(d.url, { credentials: { ...KEYS, session_token: 'FwoGZXIvYXdzEXAMPLE' } }));
    expect(await temporary.testCredentials()).toMatchObject({ ok: true });
    const without = await awsVendor.createCloudDriver(config(d.url));
    expect(await without.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(/AuthFailure: The security token included in the request is invalid\.: the access key was refused; .*session token/) });
  });

  it('resizes by stop, ModifyInstanceAttribute and start; powers off, on and reboots; terminates idempotently', async () => {
    const d = await double();
    const driver = await awsVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-resize-0', desired);
    const resized = await driver.servers.update(created.id, { ...desired, size: 't3.small' });
    expect(resized).toMatchObject({ id: created.id, size: 't3.small', status: 'running' });
    expect(d.calls.filter((c) => ['StopInstances', 'ModifyInstanceAttribute', 'StartInstances'].includes(c.action)).map((c) => c.action)).toEqual(['StopInstances', 'ModifyInstanceAttribute', 'StartInstances']);
    expect((await driver.power(created.id, 'power_off')).status).toBe('stopping');
    const stopped = await driver.servers.update(created.id, { ...desired, size: 't3.medium' });
    expect(stopped, 'a stopped instance is resized and stays stopped').toMatchObject({ size: 't3.medium', status: 'stopped' });
    expect((await driver.power(created.id, 'power_on')).status).toBe('provisioning');
    expect(await driver.power(created.id, 'reboot')).toMatchObject({ status: 'running' });
    await driver.servers.delete(created.id);
    await driver.servers.delete(created.id);
    await driver.servers.delete('eu-west-1/i-0000000000000dead');
    expect(await driver.servers.observe({ key: 'cairn-resize-0', externalId: created.id })).toBeNull();
  });

  it('sends the first-boot user data base64 in UserData, and none when there is none', async () => {
    const d = await double();
    const driver = await awsVendor.createCloudDriver(config(d.url));
    await driver.servers.create('cairn-user-data-0', { ...desired, userData: USER_DATA });
    await driver.servers.create('cairn-user-data-1', { ...desired, name: 'web-2' });
    expect(d.ec2.live().map((i) => i.userData)).toEqual([USER_DATA, null]);
  });

  it('refuses metrics, saying why, and runs databases and apps over SSH', async () => {
    const d = await double();
    const driver = await awsVendor.createCloudDriver(config(d.url));
    expect(driver.metricsUnsupported).toMatch(/CloudWatch/);
    await expect(driver.metrics('eu-west-1/i-0123456789abcdef0')).rejects.toBeInstanceOf(UnsupportedError);
    await expectRuntimeOverSsh(awsVendor, config('http://127.0.0.1:1'));
  });

  it('ends a call throttled past its waits as a VendorUnavailableError with status 429, within seconds', async () => {
    const d = await double({ rateLimit: { limit: 1, windowMs: 60_000 } });
    const driver = await awsVendor.createCloudDriver(config(d.url));
    expect(await driver.testCredentials()).toMatchObject({ ok: true });
    const started = Date.now();
    const error = await driver.testCredentials().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VendorUnavailableError);
    expect(error).toMatchObject({ status: 429, message: expect.stringContaining('RequestLimitExceeded: Request limit exceeded.') });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(d.calls.filter((c) => c.code === 'RequestLimitExceeded')).toHaveLength(5);
  });
});

describe('aws outbound guard', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('refuses a loopback endpoint when private endpoints are not allowed: nothing reaches the double', async () => {
    const d = await double();
    vi.stubEnv('CAIRN_ALLOW_PRIVATE_ENDPOINTS', '');
    const driver = await awsVendor.createCloudDriver(config(d.url));
    await expect(driver.regions()).rejects.toMatchObject({ name: 'VendorRejectedError', field: 'endpoint' });
    expect(d.calls).toEqual([]);
  });
});

describe('botocore validator', () => {
  const ec2 = new BotocoreService(vendorDocument('aws', 'ec2', '2016-11-15', 'service-2.json'));

  it('reads ec2-protocol lists and structures into the input shape', () => {
    const params = new URLSearchParams({ Action: 'RunInstances', Version: '2016-11-15', MinCount: '1', MaxCount: '1', ImageId: 'ami-1', 'TagSpecification.1.ResourceType': 'instance', 'TagSpecification.1.Tag.1.Key': 'cairn-key', 'TagSpecification.1.Tag.1.Value': 'k' });
    expect(ec2.parseRequest('RunInstances', params)).toEqual({ input: { MinCount: 1, MaxCount: 1, ImageId: 'ami-1', TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'cairn-key', Value: 'k' }] }] }, problems: [] });
  });

  it('refuses a request outside the model: a missing required member, a wrong type, a bad enum, an unknown parameter', () => {
    const params = new URLSearchParams({ Action: 'RunInstances', Version: '2016-11-15', MinCount: 'one', InstanceType: 'x9.huge', 'TagSpecification.1.Tags.1.Key': 'k' });
    const { problems } = ec2.parseRequest('RunInstances', params);
    expect(problems).toEqual(expect.arrayContaining([
      'RunInstances.MinCount: "one" is not an integer',
      expect.stringMatching(/^RunInstances.InstanceType: "x9.huge" is not one of/),
      'RunInstances: MaxCount is required (RunInstancesRequest)',
      'RunInstances: parameter TagSpecification.1.Tags.1.Key is not in RunInstancesRequest',
    ]));
  });

  it('makes the double refuse, in EC2\'s error shape, a signed request outside the model, and record it', async () => {
    const d = await startAwsDouble();
    try {
      const url = new URL(d.url);
      const body = 'Action=RunInstances&Version=2016-11-15&MinCount=1&MaxCount=1&ImageId=ami-0f9e8d7c6b5a40312&InstanceKind=t3.micro';
      const signer = new SignatureV4({ credentials: { accessKeyId: AWS_ACCESS_KEY_ID, secretAccessKey: AWS_SECRET_ACCESS_KEY }, region: 'eu-west-1', service: 'ec2', sha256: Sha256 });
      const signed = await signer.sign({ method: 'POST', protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: '/', query: {}, headers: { host: url.host, 'content-type': 'application/x-www-form-urlencoded' }, body });
      const answer = await fetch(d.url, { method: 'POST', headers: signed.headers, body });
      expect(answer.status).toBe(400);
      expect(await answer.text()).toMatch(/^<\?xml[^>]*>\n<Response><Errors><Error><Code>InvalidParameterValue<\/Code><Message>RunInstances: parameter InstanceKind is not in RunInstancesRequest<\/Message>/);
      expect(d.violations).toEqual(['RunInstances: parameter InstanceKind is not in RunInstancesRequest']);
      expect(d.ec2.live()).toEqual([]);
    } finally {
      await d.stop();
    }
  });

  it('refuses an answer outside the model, and writes one inside it as EC2 does', () => {
    expect(ec2.serializeAnswer('DescribeRegions', { Regions: [{ RegionName: 'eu-west-1', Colour: 'blue' }] }, 'r').problems).toEqual(['DescribeRegions answer.Regions[0]: Colour is not a member of Region']);
    expect(ec2.serializeAnswer('DescribeInstances', { Reservations: 'none' }, 'r').problems).toEqual(['DescribeInstances answer.Reservations: expected a list (ReservationList)']);
    expect(ec2.serializeAnswer('DescribeRegions', { Regions: [{ RegionName: 'eu-west-1' }] }, 'r1').xml).toContain('<DescribeRegionsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r1</requestId><regionInfo><item><regionName>eu-west-1</regionName></item></regionInfo></DescribeRegionsResponse>');
  });
});

// The shared fault cases (test/support/vendor-fault-cases.ts) count 429 answers and expect the
// vendor to say what is left of its budget; EC2 does neither (throttling is `RequestLimitExceeded`
// on HTTP 503, and no remaining-count header), and an observe by key alone reads the enabled
// regions first. The same cases, in EC2's terms:
describe('aws driver under faults and throttling', () => {
  const desired = { name: 'web-1', region: 'eu-west-1', size: 't3.micro', image: 'debian-12' };

  it('converges through 30% EC2 faults: calls are sent again, a failed create is asked again under the same key (ClientToken)', async () => {
    const d = await double({ pageSize: 5 });
    d.setFaultRatio(0.3, 7);
    const driver = await awsVendor.createCloudDriver(config(d.url));
    // The catalog is ~15 calls; one failing four times in a row fails the read, and cairn's loop reads again.
    let regions: unknown[] = [];
    for (let attempt = 0; attempt < 5 && regions.length === 0; attempt++) regions = await driver.regions().catch(() => []);
    expect(regions.length).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) {
      let created = false;
      for (let attempt = 0; attempt < 10 && !created; attempt++) {
        created = await driver.servers.create(`cairn-faults-${i}`, { ...desired, name: `faults-${i}` }).then(() => true, (error: unknown) => {
          if (!(error instanceof VendorUnavailableError)) throw error;
          return false;
        });
      }
      expect(created).toBe(true);
    }
    expect(d.ec2.live().map((i) => i.tags['Name']).sort()).toEqual(['faults-0', 'faults-1', 'faults-2', 'faults-3', 'faults-4']);
    expect(d.calls.filter((c) => c.code === 'InternalError' || c.code === 'Unavailable').length).toBeGreaterThan(0);
    expect(d.calls.length, 'calls for 5 servers and the catalog').toBeLessThan(80);
  });

  describe('at EC2\'s published rate', () => {
    beforeEach(() => {
      vi.stubEnv('CAIRN_VENDOR_RATE_SCALE', '1');
    });
    afterEach(() => {
      vi.unstubAllEnvs();
    });

    it('waits out RequestLimitExceeded: a storm of observes by key across every region all land', async () => {
      const d = await double({ pageSize: 5, rateLimit: { limit: 25, windowMs: 1000 } });
      const driver = await awsVendor.createCloudDriver(config(d.url));
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => driver.servers.observe({ key: `cairn-storm-${i}` })));
      expect(results.every((r) => r === null)).toBe(true);
      const answered = d.calls.filter((c) => c.status === 200);
      expect(answered.filter((c) => c.action === 'DescribeInstances'), 'each observe looked in each of the 5 regions').toHaveLength(50);
      expect(d.calls.some((c) => c.code === 'RequestLimitExceeded'), 'the storm was throttled').toBe(true);
    }, 30_000);
  });
});
