/**
 * @module OCI compute instances as cairn's ExternalClient. A launch carries the idempotency key
 * twice: as the `opc-retry-token` (OCI answers a repeated token, for 24 hours, with the instance
 * the first request made) and as the freeform tag `cairn-key` (with `managed-by: cairn` and the
 * image asked for as `cairn-image`), by which `observe` and every create first look for an
 * instance whose launch answer was lost: ListInstances has no tag filter, so the compartment's
 * instances are read page by page (`opc-next-page`) and a TERMINATED one never counts. First-boot
 * user data travels base64 in `metadata.user_data`, as cloud-init on OCI's images reads it. A
 * resize is UpdateInstance with the new shape (OCI reboots the instance into it); power is
 * InstanceAction START / STOP / SOFTRESET; a delete is TerminateInstance (its boot volume too),
 * and a TERMINATING or TERMINATED instance is gone for cairn. Addresses are the primary VNIC's.
 */
import { createHash } from 'node:crypto';
import type { ComputeClient, VirtualNetworkClient, models } from 'oci-core';
import type { CallOptions, ExternalClient, ExternalRef, PowerAction, ServerDesired, ServerObserved, VendorServerStatus } from '../contract.js';
import { followAction } from '../kit/follow-action.js';
import { KEY_LABEL, ownershipLabels } from '../kit/ownership-labels.js';
import { readAllPages } from '../kit/pagination.js';
import { IdempotencyKeySpentError, VendorRejectedError } from '../errors.js';
import { ociCall, ociRequired } from './errors.js';

/** The freeform tag that holds the image as the Server asked for it (a name or an OCID). */
export const IMAGE_TAG = 'cairn-image';

/** OCI's instance actions, by cairn's power action. */
const ACTIONS: Record<PowerAction, string> = { power_on: 'START', power_off: 'STOP', reboot: 'SOFTRESET' };

/** OCI's lifecycle states in cairn's terms. */
export function readStatus(state: string): VendorServerStatus {
  switch (state) {
    case 'PROVISIONING': case 'MOVING': case 'CREATING_IMAGE': return 'provisioning';
    case 'RUNNING': return 'running';
    case 'STARTING': return 'starting';
    case 'STOPPING': return 'stopping';
    case 'STOPPED': return 'stopped';
    case 'TERMINATING': case 'TERMINATED': return 'deleting';
    default: return 'error';
  }
}

/** TERMINATING and TERMINATED instances are gone for cairn (OCI keeps listing them for a while). */
function isGone(state: string): boolean {
  return state === 'TERMINATING' || state === 'TERMINATED';
}

/** OCI's 409 codes for a retry token it will not answer with an earlier launch. */
const SPENT_TOKEN_CODES = new Set(['IdempotencyConflict', 'InvalidatedRetryToken']);

function ociServiceCode(cause: unknown): string | undefined {
  const code = (cause as { serviceCode?: unknown } | undefined)?.serviceCode;
  return typeof code === 'string' ? code : undefined;
}

/** The `opc-retry-token` for a key: the key itself, or a digest of it past OCI's 64 characters. */
export function retryToken(key: string): string {
  return key.length <= 64 ? key : `cairn-${createHash('sha256').update(key).digest('hex').slice(0, 58)}`;
}

/** What the instances client needs from the driver's catalog and images. */
export interface OciPlacement {
  compartment: string;
  subnet: string;
  /** Refuses an availability domain or shape OCI does not offer there, before anything is sent. */
  checkPlacement(region: string, size: string): Promise<void>;
  /** The AD's full name (`Uocm:EU-FRANKFURT-1-AD-1`) for cairn's region slug, and back. */
  adName(region: string): Promise<string>;
  regionOf(adName: string): string;
  /** The shape config a flexible shape is launched with (its listed OCPUs and memory); undefined for a fixed shape. */
  shapeConfig(size: string): Promise<{ ocpus: number; memoryInGBs: number } | undefined>;
  /** The image OCID for an image name or OCID; refuses one the compartment cannot use. */
  resolveImage(image: string, signal?: AbortSignal): Promise<string>;
}

export class OciInstances implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(
    private readonly compute: ComputeClient,
    private readonly network: VirtualNetworkClient,
    private readonly placement: OciPlacement,
    private readonly pollMs: number,
    private readonly listPageSize = 100,
  ) {}

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    if (ref.externalId?.startsWith('ocid1.instance.')) {
      const found = await this.get(ref.externalId, options);
      if (found) return found;
    }
    return ref.key === '' ? null : this.findByKey(ref.key, options);
  }

  private async get(instanceId: string, options: CallOptions): Promise<ServerObserved | null> {
    const answer = await ociCall(`observe instance ${instanceId}`, () => this.compute.getInstance({ instanceId }), { signal: options.signal, accept: [404] });
    if (!answer || isGone(answer.instance.lifecycleState)) return null;
    return this.read(answer.instance, options);
  }

  private async findByKey(key: string, options: CallOptions): Promise<ServerObserved | null> {
    const doing = `find the instance tagged ${KEY_LABEL}=${key}`;
    const instances = await readAllPages(async (page) => {
      const answer = await ociRequired(doing, () => this.compute.listInstances({ compartmentId: this.placement.compartment, limit: this.listPageSize, ...(page === undefined ? {} : { page }) }), options);
      return { items: answer.items, next: answer.opcNextPage };
    }, `oci: ${doing}`);
    const found = instances.find((i) => i.freeformTags?.[KEY_LABEL] === key && !isGone(i.lifecycleState));
    return found ? this.read(found, options) : null;
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const existing = await this.findByKey(key, options);
    if (existing) return existing;
    await this.placement.checkPlacement(desired.region, desired.size);
    const imageId = await this.placement.resolveImage(desired.image, options.signal);
    const shapeConfig = await this.placement.shapeConfig(desired.size);
    const details: models.LaunchInstanceDetails = {
      availabilityDomain: await this.placement.adName(desired.region),
      compartmentId: this.placement.compartment,
      displayName: desired.name,
      shape: desired.size,
      ...(shapeConfig ? { shapeConfig } : {}),
      sourceDetails: { sourceType: 'image', imageId },
      createVnicDetails: { subnetId: this.placement.subnet, assignPublicIp: true, displayName: desired.name },
      freeformTags: { ...ownershipLabels(key), [IMAGE_TAG]: desired.image },
      ...(desired.userData ? { metadata: { user_data: Buffer.from(desired.userData).toString('base64') } } : {}),
    };
    let answer;
    try {
      answer = await ociRequired(`launch instance "${desired.name}"`, () => this.compute.launchInstance({ launchInstanceDetails: details, opcRetryToken: retryToken(key) }), options);
    } catch (error) {
      // The token was spent on a launch whose instance no longer exists (findByKey found none):
      // OCI refuses it (409) when the request differs from that launch or the token was
      // invalidated by the instance's termination. Nothing was made; a new key makes it.
      const refused = error instanceof VendorRejectedError && error.status === 409 ? ociServiceCode(error.cause) : undefined;
      if (refused !== undefined && SPENT_TOKEN_CODES.has(refused)) {
        throw new IdempotencyKeySpentError(`oci: launch instance "${desired.name}": OCI refused this launch's opc-retry-token (${refused}): an earlier launch under it made an instance that is gone`);
      }
      throw error;
    }
    // OCI answers a retry token with the instance it launched, even once that is terminated.
    if (isGone(String(answer.instance.lifecycleState))) {
      throw new IdempotencyKeySpentError(`oci: launch instance "${desired.name}": OCI answered this launch's opc-retry-token with instance ${answer.instance.id}, which is ${String(answer.instance.lifecycleState)}`);
    }
    return this.read(answer.instance, options);
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `resize instance "${desired.name}" (${externalId}) to ${desired.size}`;
    const current = await this.settled(externalId, doing, options);
    if (current.size === desired.size) return current;
    await this.placement.checkPlacement(current.region, desired.size);
    const shapeConfig = await this.placement.shapeConfig(desired.size);
    await ociRequired(doing, () => this.compute.updateInstance({ instanceId: externalId, updateInstanceDetails: { shape: desired.size, ...(shapeConfig ? { shapeConfig } : {}) } }), options);
    return this.settled(externalId, doing, options);
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const doing = `${action} instance ${externalId}`;
    await this.settled(externalId, doing, options);
    const answer = await ociRequired(doing, () => this.compute.instanceAction({ instanceId: externalId, action: ACTIONS[action] }), options);
    return this.read(answer.instance, options);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    await ociCall(`terminate instance ${externalId}`, () => this.compute.terminateInstance({ instanceId: externalId, preserveBootVolume: false }), { signal: options.signal, accept: [404] });
  }

  private async required(externalId: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    const instance = await this.get(externalId, options);
    if (!instance) throw new Error(`oci: ${doing}: instance ${externalId} no longer exists`);
    return instance;
  }

  /** The instance once it is running or stopped (a launch, resize or power action may still be under way). */
  private async settled(externalId: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    let instance = await this.required(externalId, doing, options);
    if (instance.status === 'running' || instance.status === 'stopped') return instance;
    await followAction(async () => {
      instance = await this.required(externalId, doing, options);
      return { done: instance.status === 'running' || instance.status === 'stopped' };
    }, { what: `oci: ${doing}: waiting for the instance to settle`, intervalMs: this.pollMs, signal: options.signal });
    return instance;
  }

  private async read(instance: models.Instance, options: CallOptions): Promise<ServerObserved> {
    const tags = instance.freeformTags ?? {};
    const addresses = String(instance.lifecycleState) === 'RUNNING' ? await this.addresses(instance, options) : { ipv4: null, ipv6: null };
    return {
      id: instance.id,
      name: instance.displayName ?? '',
      clientToken: tags[KEY_LABEL] ?? '',
      region: this.placement.regionOf(instance.availabilityDomain),
      size: instance.shape,
      image: tags[IMAGE_TAG] ?? instance.imageId ?? '',
      status: readStatus(instance.lifecycleState),
      ...addresses,
    };
  }

  /** The primary VNIC's public addresses (its attachment, then the VNIC). */
  private async addresses(instance: models.Instance, options: CallOptions): Promise<{ ipv4: string | null; ipv6: string | null }> {
    const doing = `read the addresses of instance ${instance.id}`;
    const attachments = await ociRequired(doing, () => this.compute.listVnicAttachments({ compartmentId: instance.compartmentId, instanceId: instance.id }), options);
    const vnicId = attachments.items.find((a) => String(a.lifecycleState) === 'ATTACHED' && a.vnicId !== undefined)?.vnicId;
    if (vnicId === undefined) return { ipv4: null, ipv6: null };
    const vnic = await ociCall(doing, () => this.network.getVnic({ vnicId }), { signal: options.signal, accept: [404] });
    return { ipv4: vnic?.vnic.publicIp ?? null, ipv6: vnic?.vnic.ipv6Addresses?.[0] ?? null };
  }
}
