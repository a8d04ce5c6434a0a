/**
 * @module EC2 instances as cairn's ExternalClient. A create is RunInstances with cairn's key as
 * EC2's `ClientToken` (EC2 answers the same instance for the same token), the key and
 * `managed-by=cairn` as tags on the instance (TagSpecifications, with `Name`), and the user data
 * base64 as EC2 takes it. Before sending, it looks for an instance tagged with the key in the
 * region (DescribeInstances, `tag:cairn-key` filter), so a create whose answer was lost is found,
 * never made twice; `observe` by key alone looks in every enabled region. A resize is EC2's own:
 * stop, ModifyInstanceAttribute(InstanceType), start (a stopped instance stays stopped). A
 * region, size or image EC2 lacks is refused before anything is sent.
 */
import { createHash } from 'node:crypto';
import {
  DescribeInstancesCommand, ModifyInstanceAttributeCommand, RebootInstancesCommand, RunInstancesCommand, StartInstancesCommand,
  StopInstancesCommand, TerminateInstancesCommand, type Instance,
} from '@aws-sdk/client-ec2';
import type { CallOptions, ExternalClient, ExternalRef, PowerAction, ServerDesired, ServerObserved } from '../contract.js';
import { IdempotencyKeySpentError } from '../errors.js';
import { followAction } from '../kit/follow-action.js';
import { KEY_LABEL } from '../kit/ownership-labels.js';
import { readAllPages } from '../kit/pagination.js';
import type { AwsClients } from './clients.js';
import { isAwsError } from './sdk-call.js';
import { clientTokenFor, parseServerId, readInstance } from './wire-format.js';

/** EC2 states of an instance terminated or being terminated: it cannot come back, so cairn counts it gone. */
const GONE = new Set(['shutting-down', 'terminated']);

/** Instances per page when looking by tag (EC2 allows 5–1000). */
const LIST_PAGE = 1000;

export class Ec2Instances implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(
    private readonly clients: AwsClients,
    private readonly pollMs: number,
    /** Refuses a region or instance type EC2 does not offer, before anything is sent. */
    private readonly checkPlacement: (region: string, size: string) => Promise<void>,
    /** The AMI id of an image in a region (an AMI id, or a name resolved with DescribeImages). */
    private readonly resolveImage: (region: string, image: string, options: CallOptions) => Promise<string>,
    /** The regions to look in for a key without an id. */
    private readonly regions: () => Promise<string[]>,
  ) {}

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    const id = ref.externalId ? parseServerId(ref.externalId) : undefined;
    if (id) {
      const found = await this.get(id.region, id.instanceId, `observe instance ${id.instanceId}`, options);
      if (found) return found;
    }
    if (ref.key === '') return null;
    for (const region of await this.regions()) {
      const found = await this.findByKey(region, ref.key, options);
      if (found) return found;
    }
    return null;
  }

  /** The instance, or null when EC2 does not know it or it is shutting down or terminated (going for good). */
  private async get(region: string, instanceId: string, doing: string, options: CallOptions): Promise<ServerObserved | null> {
    try {
      const answer = await this.clients.sendEc2(region, doing, options.signal, (ec2, o) => ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }), o));
      const instance = answer.Reservations?.flatMap((r) => r.Instances ?? []).find((i) => i.InstanceId === instanceId);
      return instance && !GONE.has(instance.State?.Name ?? '') ? readInstance(instance, region) : null;
    } catch (error) {
      if (isAwsError(error, 'InvalidInstanceID.NotFound')) return null;
      throw error;
    }
  }

  /** The instance of `region` tagged with the key (not shutting down or terminated), read across every page. */
  private async findByKey(region: string, key: string, options: CallOptions): Promise<ServerObserved | null> {
    const doing = `find instance tagged ${KEY_LABEL}=${key}`;
    const filters = [{ Name: `tag:${KEY_LABEL}`, Values: [key] }, { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped'] }];
    const instances = await readAllPages<Instance>(async (token) => {
      const answer = await this.clients.sendEc2(region, doing, options.signal, (ec2, o) =>
        ec2.send(new DescribeInstancesCommand({ Filters: filters, MaxResults: LIST_PAGE, ...(token === undefined ? {} : { NextToken: token }) }), o));
      return { items: (answer.Reservations ?? []).flatMap((r) => r.Instances ?? []), next: answer.NextToken ?? undefined };
    }, `aws ec2 ${region}: ${doing}`);
    const found = instances.find((i) => i.Tags?.some((t) => t.Key === KEY_LABEL && t.Value === key));
    return found ? readInstance(found, region) : null;
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    await this.checkPlacement(desired.region, desired.size);
    const existing = await this.findByKey(desired.region, key, options);
    if (existing) return existing;
    const imageId = await this.resolveImage(desired.region, desired.image, options);
    const tags = [{ Key: 'Name', Value: desired.name }, { Key: KEY_LABEL, Value: key }, { Key: 'managed-by', Value: 'cairn' }];
    const answer = await this.clients.sendEc2(desired.region, `create instance "${desired.name}"`, options.signal, (ec2, o) => ec2.send(new RunInstancesCommand({
      ClientToken: clientTokenFor(key, (text) => createHash('sha256').update(text).digest('hex')),
      ImageId: imageId,
      InstanceType: desired.size as never,
      MinCount: 1,
      MaxCount: 1,
      TagSpecifications: [{ ResourceType: 'instance', Tags: tags }],
      ...(desired.userData ? { UserData: Buffer.from(desired.userData).toString('base64') } : {}),
    }), o));
    const instance = answer.Instances?.[0];
    if (!instance) throw new Error(`aws ec2 ${desired.region}: create instance "${desired.name}": RunInstances answered no instance`);
    // EC2 answers a ClientToken with the instance it made, even once that is terminated.
    if (GONE.has(instance.State?.Name ?? '')) {
      throw new IdempotencyKeySpentError(`aws ec2 ${desired.region}: create instance "${desired.name}": EC2 answered this create's ClientToken with instance ${instance.InstanceId ?? '?'}, which is ${instance.State?.Name ?? 'gone'}`);
    }
    return readInstance(instance, desired.region);
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const { region, instanceId } = this.idOf(externalId);
    const doing = `resize instance "${desired.name}" (${instanceId}) to ${desired.size}`;
    const current = await this.settled(region, instanceId, doing, options);
    if (current.size === desired.size) return current;
    await this.checkPlacement(region, desired.size);
    const wasRunning = current.status === 'running';
    if (wasRunning) {
      await this.clients.sendEc2(region, doing, options.signal, (ec2, o) => ec2.send(new StopInstancesCommand({ InstanceIds: [instanceId] }), o));
      await this.settled(region, instanceId, doing, options);
    }
    await this.clients.sendEc2(region, doing, options.signal, (ec2, o) => ec2.send(new ModifyInstanceAttributeCommand({ InstanceId: instanceId, InstanceType: { Value: desired.size } }), o));
    if (wasRunning) await this.clients.sendEc2(region, doing, options.signal, (ec2, o) => ec2.send(new StartInstancesCommand({ InstanceIds: [instanceId] }), o));
    return this.settled(region, instanceId, doing, options);
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const { region, instanceId } = this.idOf(externalId);
    const doing = `${action} instance ${instanceId}`;
    await this.settled(region, instanceId, doing, options);
    const ids = { InstanceIds: [instanceId] };
    await this.clients.sendEc2(region, doing, options.signal, (ec2, o) =>
      action === 'power_on' ? ec2.send(new StartInstancesCommand(ids), o) : action === 'power_off' ? ec2.send(new StopInstancesCommand(ids), o) : ec2.send(new RebootInstancesCommand(ids), o));
    return this.required(region, instanceId, doing, options);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const id = parseServerId(externalId);
    if (!id) return;
    try {
      await this.clients.sendEc2(id.region, `delete instance ${id.instanceId}`, options.signal, (ec2, o) => ec2.send(new TerminateInstancesCommand({ InstanceIds: [id.instanceId] }), o));
    } catch (error) {
      if (!isAwsError(error, 'InvalidInstanceID.NotFound')) throw error;
    }
  }

  private idOf(externalId: string): { region: string; instanceId: string } {
    const id = parseServerId(externalId);
    if (!id) throw new Error(`aws: "${externalId}" is not an instance id cairn made (<region>/i-…)`);
    return id;
  }

  private async required(region: string, instanceId: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    const instance = await this.get(region, instanceId, doing, options);
    if (!instance) throw new Error(`aws ec2 ${region}: ${doing}: instance ${instanceId} no longer exists`);
    return instance;
  }

  /** The instance once it is running or stopped (a launch, stop or start may be under way). */
  private async settled(region: string, instanceId: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    let instance = await this.required(region, instanceId, doing, options);
    if (instance.status === 'running' || instance.status === 'stopped') return instance;
    await followAction(
      async () => {
        instance = await this.required(region, instanceId, doing, options);
        return { done: instance.status === 'running' || instance.status === 'stopped' };
      },
      { what: `aws ec2 ${region}: ${doing}: waiting for the instance to settle`, intervalMs: this.pollMs, signal: options.signal },
    );
    return instance;
  }
}
