/**
 * @module CVM instances as cairn's ExternalClient. A create is RunInstances with the idempotency
 * key as its `ClientToken` (Tencent makes one instance per token, so the create may be sent
 * again) and as the `cairn-key` tag (with `managed-by: cairn`), looked for first by that tag
 * (DescribeInstances' `tag:cairn-key` filter, every page): an instance whose answer was lost is
 * found, never made twice. A resize is ResetInstancesType, which CVM makes on a stopped instance
 * only: cairn stops it, changes its type, and starts it again when it was running. Power is
 * Start/Stop/RebootInstances; delete is TerminateInstances, followed until the instance is gone.
 * Every call goes to the instance's region (named in cairn's id, wire-format.ts).
 */
import type { CallOptions, ExternalClient, ExternalRef, PowerAction, ServerDesired, ServerObserved } from '../contract.js';
import { IdempotencyKeySpentError, VendorRejectedError } from '../errors.js';
import { followAction } from '../kit/follow-action.js';
import { KEY_LABEL, ownershipLabels } from '../kit/ownership-labels.js';
import { readAllPages } from '../kit/pagination.js';
import { WireReader } from '../kit/wire-reader.js';
import { tencentCode } from './errors.js';
import { CVM, type TencentApi } from './sdk-client.js';
import { externalIdOf, nextOffset, parseExternalId, readInstance, regionOfZone } from './wire-format.js';

/** Instances per page (DescribeInstances' most). */
const PAGE = 100;

/** States an instance passes through on its way to running or stopped. */
const MOVING = new Set(['PENDING', 'STARTING', 'STOPPING', 'REBOOTING']);

export interface TencentPlacement {
  /** Refuses a zone or instance type Tencent does not offer, before anything is sent. */
  checkPlacement(zone: string, size: string): Promise<void>;
  /** The regions to look through for an instance by its key. */
  searchRegions(): Promise<string[]>;
  /** The image id for `image` in a region (an `img-` id, or an OS slug such as `debian-12`). */
  resolveImage(region: string, image: string): Promise<string>;
}

interface Found {
  region: string;
  instance: WireReader;
}

export class TencentInstances implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(
    private readonly api: TencentApi,
    private readonly placement: TencentPlacement,
    private readonly pollMs: number,
  ) {}

  private where(externalId: string): { instanceId: string; region: string } {
    const parsed = parseExternalId(externalId);
    if (!parsed) throw new VendorRejectedError(`tencent: "${externalId}" is not an instance id of cairn's (<ins-…>@<region>)`, { field: 'externalId' });
    return parsed;
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    if (ref.externalId && parseExternalId(ref.externalId)) {
      const found = await this.get(ref.externalId, `observe instance ${ref.externalId}`, options);
      if (found) return found;
    }
    if (ref.key === '') return null;
    for (const region of await this.placement.searchRegions()) {
      const found = await this.findByKey(region, ref.key, options);
      if (found) return found;
    }
    return null;
  }

  private async describe(externalId: string, doing: string, options: CallOptions): Promise<WireReader | null> {
    const { instanceId, region } = this.where(externalId);
    try {
      const answer = await this.api.call(CVM, region, 'DescribeInstances', { InstanceIds: [instanceId] }, { doing, signal: options.signal, idempotent: true });
      return WireReader.of(answer, `tencent: ${doing}`).array('InstanceSet')[0] ?? null;
    } catch (error) {
      if (tencentCode((error as Error).cause) === 'InvalidInstanceId.NotFound') return null;
      throw error;
    }
  }

  async get(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved | null> {
    const instance = await this.describe(externalId, doing, options);
    return instance ? readInstance(instance, this.where(externalId).region) : null;
  }

  private async findByKey(region: string, key: string, options: CallOptions): Promise<ServerObserved | null> {
    const doing = `find the instance tagged ${KEY_LABEL}=${key} in ${region}`;
    const instances = await readAllPages(async (at) => {
      const offset = Number(at ?? 0);
      const request = { Filters: [{ Name: `tag:${KEY_LABEL}`, Values: [key] }], Offset: offset, Limit: PAGE };
      const body = WireReader.of(await this.api.call(CVM, region, 'DescribeInstances', request, { doing, signal: options.signal, idempotent: true }), `tencent: ${doing}`);
      const items = body.array('InstanceSet');
      return { items, next: nextOffset(offset, items.length, body.number('TotalCount')) };
    }, `tencent: ${doing}`);
    const found = instances.find((instance) => instance.raw('InstanceState') !== 'TERMINATING');
    return found ? readInstance(found, region) : null;
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const zone = desired.region;
    await this.placement.checkPlacement(zone, desired.size);
    const region = regionOfZone(zone);
    const existing = await this.findByKey(region, key, options);
    if (existing) return existing;
    const imageId = await this.placement.resolveImage(region, desired.image);
    const doing = `run instance "${desired.name}" in ${zone}`;
    const request = {
      ClientToken: key,
      InstanceChargeType: 'POSTPAID_BY_HOUR',
      Placement: { Zone: zone },
      InstanceType: desired.size,
      ImageId: imageId,
      InstanceName: desired.name,
      InstanceCount: 1,
      InternetAccessible: { InternetChargeType: 'TRAFFIC_POSTPAID_BY_HOUR', InternetMaxBandwidthOut: 10, PublicIpAssigned: true },
      TagSpecification: [{ ResourceType: 'instance', Tags: Object.entries(ownershipLabels(key)).map(([Key, Value]) => ({ Key, Value })) }],
      ...(desired.userData ? { UserData: Buffer.from(desired.userData).toString('base64') } : {}),
    };
    const answer = WireReader.of(await this.api.call(CVM, region, 'RunInstances', request, { doing, signal: options.signal, idempotent: true }), `tencent: ${doing}`);
    const [instanceId] = answer.strings('InstanceIdSet');
    if (instanceId === undefined) throw new VendorRejectedError(`tencent: ${doing}: Tencent answered without an instance id`);
    const created = await this.get(externalIdOf(instanceId, region), doing, options);
    // Tencent answers a ClientToken with the instance it made, even once that is terminated.
    if (!created) throw new IdempotencyKeySpentError(`tencent: ${doing}: Tencent answered this create's ClientToken with instance ${instanceId}, which has since been terminated`);
    return created;
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `resize instance "${desired.name}" (${externalId}) to ${desired.size}`;
    const current = await this.settled(externalId, doing, options);
    if (current.size === desired.size) return current;
    await this.placement.checkPlacement(current.region, desired.size);
    const { instanceId, region } = this.where(externalId);
    const wasRunning = current.status === 'running';
    if (wasRunning) {
      await this.api.call(CVM, region, 'StopInstances', { InstanceIds: [instanceId], StopType: 'SOFT_FIRST' }, { doing, signal: options.signal });
      await this.settled(externalId, doing, options);
    }
    await this.api.call(CVM, region, 'ResetInstancesType', { InstanceIds: [instanceId], InstanceType: desired.size }, { doing, signal: options.signal });
    let resized = await this.settled(externalId, doing, options);
    if (resized.size !== desired.size) throw new VendorRejectedError(`tencent: ${doing}: the instance is still ${resized.size} after ResetInstancesType`, { field: 'size' });
    if (wasRunning) {
      await this.api.call(CVM, region, 'StartInstances', { InstanceIds: [instanceId] }, { doing, signal: options.signal });
      resized = await this.settled(externalId, doing, options);
    }
    return resized;
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `${action} instance ${externalId}`;
    const current = await this.settled(externalId, doing, options);
    if ((action === 'power_on' && current.status === 'running') || (action === 'power_off' && current.status === 'stopped')) return current;
    const { instanceId, region } = this.where(externalId);
    const call = { InstanceIds: [instanceId] };
    if (action === 'power_on') await this.api.call(CVM, region, 'StartInstances', call, { doing, signal: options.signal });
    else if (action === 'power_off') await this.api.call(CVM, region, 'StopInstances', { ...call, StopType: 'SOFT_FIRST' }, { doing, signal: options.signal });
    else await this.api.call(CVM, region, 'RebootInstances', { ...call, StopType: 'SOFT_FIRST' }, { doing, signal: options.signal });
    return this.required(externalId, doing, options);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const doing = `terminate instance ${externalId}`;
    const { instanceId, region } = this.where(externalId);
    const instance = await this.describe(externalId, doing, options);
    if (!instance) return;
    if (instance.raw('InstanceState') !== 'TERMINATING') {
      try {
        await this.api.call(CVM, region, 'TerminateInstances', { InstanceIds: [instanceId] }, { doing, signal: options.signal });
      } catch (error) {
        if (tencentCode((error as Error).cause) !== 'InvalidInstanceId.NotFound') throw error;
        return;
      }
    }
    await followAction(async () => ({ done: (await this.describe(externalId, doing, options)) === null }), { what: `tencent: ${doing}: waiting for it to be gone`, intervalMs: this.pollMs, signal: options.signal });
  }

  async required(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved> {
    const instance = await this.get(externalId, doing, options);
    if (!instance) throw new VendorRejectedError(`tencent: ${doing}: instance ${externalId} no longer exists`);
    return instance;
  }

  /** The instance once no state change or operation is under way on it. */
  private async settled(externalId: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    let found: Found | null = null;
    const { region } = this.where(externalId);
    await followAction(
      async () => {
        const instance = await this.describe(externalId, doing, options);
        if (!instance) throw new VendorRejectedError(`tencent: ${doing}: instance ${externalId} no longer exists`);
        found = { region, instance };
        const state = instance.string('InstanceState');
        if (state === 'LAUNCH_FAILED') return { done: true, failed: instance.stringOrNull('LatestOperationErrorMsg') ?? 'the launch failed' };
        return { done: !MOVING.has(state) && instance.stringOrNull('LatestOperationState') !== 'OPERATING' };
      },
      { what: `tencent: ${doing}: waiting for the instance to settle`, intervalMs: this.pollMs, signal: options.signal },
    );
    const settled = found as Found | null;
    if (!settled) throw new VendorRejectedError(`tencent: ${doing}: instance ${externalId} no longer exists`);
    return readInstance(settled.instance, settled.region);
  }
}
