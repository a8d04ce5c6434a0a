/**
 * @module Compute Engine instances as cairn's ExternalClient. An instance is named by its zone
 * and name (cairn's external id `europe-west1-b/web-1`). A create first looks for an instance
 * labelled with its key (`instances.aggregatedList` filtered by `labels.cairn-key`), then inserts
 * with a `requestId` derived from the key, so Google itself answers a repeated insert with the
 * first one's operation: a create cut short by a crash is found, never made twice. Every change
 * is a zone operation, followed to its end (`zoneOperations.get`); a failed one is refused with
 * Google's reason. Resize is stop → `setMachineType` → start (Compute Engine changes a machine
 * type only while the instance is stopped); power is start, stop and reset.
 */
import type { compute_v1 } from '@googleapis/compute';
import type { CallOptions, ExternalClient, ExternalRef, PowerAction, ServerDesired, ServerObserved } from '../contract.js';
import { IdempotencyKeySpentError, VendorRejectedError } from '../errors.js';
import { followAction } from '../kit/follow-action.js';
import { ownershipLabels } from '../kit/ownership-labels.js';
import { readAllPages } from '../kit/pagination.js';
import type { GcpClient } from './gcp-client.js';
import { BOOT_DISK_GB, IMAGE_METADATA, KEY_METADATA, keyOf, labelValueForKey, lastSegment, readInstance, requestIdForKey, sourceImage } from './wire-format.js';

/** An external id: `zone/name`, each a Compute Engine name. */
const EXTERNAL_ID = /^([a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)\/([a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)$/;

/** Instances per page when looking for a key (Google's most is 500). */
const LIST_PAGE = 500;

export class GcpInstances implements ExternalClient<ServerDesired, ServerObserved> {
  constructor(
    private readonly gcp: GcpClient,
    private readonly pollMs: number,
    /** Refuses a zone or machine type Compute Engine does not offer, before anything is sent. */
    private readonly checkPlacement: (zone: string, size: string) => Promise<void>,
  ) {}

  private get compute(): compute_v1.Compute {
    return this.gcp.compute;
  }

  private parse(externalId: string): { zone: string; instance: string } | undefined {
    const found = EXTERNAL_ID.exec(externalId);
    return found ? { zone: found[1] ?? '', instance: found[2] ?? '' } : undefined;
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<ServerObserved | null> {
    if (ref.externalId && this.parse(ref.externalId)) {
      const found = await this.get(ref.externalId, `observe instance ${ref.externalId}`, options);
      if (found) return found;
    }
    return ref.key === '' ? null : this.findByKey(ref.key, options);
  }

  async get(externalId: string, doing: string, options: CallOptions = {}): Promise<ServerObserved | null> {
    const at = this.parse(externalId);
    if (!at) return null;
    const found = await this.gcp.find({ doing, idempotent: true, signal: options.signal }, (o) => this.compute.instances.get({ project: this.gcp.project, ...at }, o));
    return found ? readInstance(found, `gcp: ${doing}`) : null;
  }

  /** The instance labelled with the key, in any zone (one filtered aggregated list, every page). */
  private async findByKey(key: string, options: CallOptions): Promise<ServerObserved | null> {
    const doing = `find the instance labelled cairn-key=${labelValueForKey(key)}`;
    const filter = `labels.cairn-key = "${labelValueForKey(key)}"`;
    const instances = await readAllPages(async (pageToken) => {
      const page = await this.gcp.call({ doing, idempotent: true, signal: options.signal }, (o) =>
        this.compute.instances.aggregatedList({ project: this.gcp.project, filter, maxResults: LIST_PAGE, returnPartialSuccess: true, ...(pageToken === undefined ? {} : { pageToken }) }, o),
      );
      const items = Object.values(page.items ?? {}).flatMap((scoped) => scoped.instances ?? []);
      return { items, next: page.nextPageToken ?? undefined };
    }, `gcp: ${doing}`);
    // The label may be a digest of a long key: the metadata holds the key itself.
    const found = instances.find((instance) => keyOf(instance) === key);
    return found ? readInstance(found, `gcp: ${doing}`) : null;
  }

  async create(key: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const existing = await this.findByKey(key, options);
    if (existing) return existing;
    const zone = desired.region;
    await this.checkPlacement(zone, desired.size);
    const image = sourceImage(desired.image);
    const doing = `insert instance "${desired.name}" in ${zone}`;
    const metadata = [
      { key: KEY_METADATA, value: key },
      { key: IMAGE_METADATA, value: desired.image },
      ...(desired.userData ? [{ key: 'user-data', value: desired.userData }] : []),
    ];
    const labels = { ...ownershipLabels(key), [KEY_METADATA]: labelValueForKey(key) };
    const requestBody: compute_v1.Schema$Instance = {
      name: desired.name,
      machineType: `zones/${zone}/machineTypes/${desired.size}`,
      labels,
      metadata: { items: metadata },
      disks: [{ boot: true, autoDelete: true, type: 'PERSISTENT', initializeParams: { sourceImage: image, diskSizeGb: String(BOOT_DISK_GB) } }],
      networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{ type: 'ONE_TO_ONE_NAT', name: 'External NAT' }] }],
    };
    const operation = await this.gcp.call({ doing, idempotent: true, signal: options.signal }, (o) =>
      this.compute.instances.insert({ project: this.gcp.project, zone, requestId: requestIdForKey(key), requestBody }, o),
    );
    await this.follow(operation, zone, doing, options);
    const created = await this.get(`${zone}/${desired.name}`, doing, options);
    // Compute Engine answers a requestId with the insert it made, even once its instance is deleted.
    if (!created) throw new IdempotencyKeySpentError(`gcp: ${doing}: Compute Engine answered this insert's requestId with an earlier insert, whose instance has since been deleted`);
    return created;
  }

  async update(externalId: string, desired: ServerDesired, options: CallOptions = {}): Promise<ServerObserved> {
    const at = this.at(externalId);
    const doing = `resize instance ${externalId} to ${desired.size}`;
    const current = await this.required(externalId, doing, options);
    if (current.size === desired.size) return current;
    await this.checkPlacement(at.zone, desired.size);
    const wasRunning = current.status !== 'stopped';
    if (wasRunning) await this.operate('stop', externalId, `${doing}: stop`, options);
    await this.run(`${doing}: set the machine type`, at.zone, options, (o) =>
      this.compute.instances.setMachineType({ project: this.gcp.project, ...at, requestBody: { machineType: `zones/${at.zone}/machineTypes/${desired.size}` } }, o),
    );
    if (wasRunning) await this.operate('start', externalId, `${doing}: start`, options);
    return this.required(externalId, doing, options);
  }

  async power(externalId: string, action: PowerAction, options: CallOptions = {}): Promise<ServerObserved> {
    const verb = action === 'power_on' ? 'start' : action === 'power_off' ? 'stop' : 'reset';
    const doing = `${verb} instance ${externalId}`;
    await this.operate(verb, externalId, doing, options);
    return this.required(externalId, doing, options);
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const at = this.parse(externalId);
    if (!at) return;
    const doing = `delete instance ${externalId}`;
    const operation = await this.gcp.find({ doing, idempotent: true, signal: options.signal }, (o) => this.compute.instances.delete({ project: this.gcp.project, ...at }, o));
    if (operation) await this.follow(operation, at.zone, doing, options);
  }

  private at(externalId: string): { zone: string; instance: string } {
    const at = this.parse(externalId);
    if (!at) throw new VendorRejectedError(`gcp: "${externalId}" is not an instance id (zone/name)`);
    return at;
  }

  private async required(externalId: string, doing: string, options: CallOptions): Promise<ServerObserved> {
    const instance = await this.get(externalId, doing, options);
    if (!instance) throw new VendorRejectedError(`gcp: ${doing}: instance ${externalId} no longer exists`, { status: 404 });
    return instance;
  }

  private operate(verb: 'start' | 'stop' | 'reset', externalId: string, doing: string, options: CallOptions): Promise<void> {
    const at = this.at(externalId);
    return this.run(doing, at.zone, options, (o) => this.compute.instances[verb]({ project: this.gcp.project, ...at }, o));
  }

  /** Sends a change and follows its operation to the end. */
  private async run(doing: string, zone: string, options: CallOptions, send: (o: { signal?: AbortSignal; timeout: number }) => Promise<{ data: compute_v1.Schema$Operation }>): Promise<void> {
    const operation = await this.gcp.call({ doing, idempotent: false, signal: options.signal }, send);
    await this.follow(operation, zone, doing, options);
  }

  /** Polls a zone operation until DONE; its error (Google's reason) becomes a refusal. */
  private async follow(operation: compute_v1.Schema$Operation, zone: string, doing: string, options: CallOptions): Promise<void> {
    let current = operation;
    const name = current.name ?? '';
    const opZone = lastSegment(current.zone) || zone;
    await followAction(
      async () => {
        if (current.status !== 'DONE') {
          current = await this.gcp.call({ doing: `${doing}: follow operation ${name}`, idempotent: true, signal: options.signal }, (o) =>
            this.compute.zoneOperations.get({ project: this.gcp.project, zone: opZone, operation: name }, o),
          );
        }
        if (current.status !== 'DONE') return { done: false };
        const failure = current.error?.errors?.[0];
        return failure ? { done: true, failed: `${failure.code ?? 'ERROR'}: ${failure.message ?? 'no message'}` } : { done: true };
      },
      { what: `gcp: ${doing}`, intervalMs: this.pollMs, signal: options.signal },
    );
  }
}
