/**
 * @module EC2's objects as cairn's: an instance (from the SDK's `Instance`) as a ServerObserved,
 * its state folded into cairn's statuses, its key read from the `cairn-key` tag, and cairn's id
 * for an instance, `<region>/<instance id>`: EC2's ids are regional (every call goes to the
 * region's endpoint), so the region travels with the id.
 */
import type { Instance } from '@aws-sdk/client-ec2';
import type { ServerObserved, VendorServerStatus } from '../contract.js';
import { KEY_LABEL } from '../kit/ownership-labels.js';

/** EC2's instance states as cairn's statuses; `terminated` is gone (observe answers null). */
const STATUS: Record<string, VendorServerStatus> = {
  pending: 'provisioning',
  running: 'running',
  stopping: 'stopping',
  stopped: 'stopped',
  'shutting-down': 'deleting',
  terminated: 'deleting',
};

export function readStatus(state: string | undefined): VendorServerStatus {
  return STATUS[state ?? ''] ?? 'error';
}

/** cairn's id of an instance: its region and EC2 id. */
export function serverId(region: string, instanceId: string): string {
  return `${region}/${instanceId}`;
}

/** The region and EC2 id in cairn's id, or undefined for one that is not (a foreign or stale id). */
export function parseServerId(id: string): { region: string; instanceId: string } | undefined {
  const m = /^([a-z]{2}(?:-[a-z]+)+-\d+)\/(i-[0-9a-f]{8,17})$/.exec(id);
  return m ? { region: m[1]!, instanceId: m[2]! } : undefined;
}

/** The instance's tags as a record. */
export function tagsOf(instance: Instance): Record<string, string> {
  return Object.fromEntries((instance.Tags ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
}

/** The instance as cairn sees it, in `region`. */
export function readInstance(instance: Instance, region: string): ServerObserved {
  const tags = tagsOf(instance);
  return {
    id: serverId(region, instance.InstanceId ?? ''),
    name: tags['Name'] ?? '',
    clientToken: tags[KEY_LABEL] ?? '',
    region,
    size: instance.InstanceType ?? '',
    image: instance.ImageId ?? '',
    status: readStatus(instance.State?.Name),
    ipv4: instance.PublicIpAddress ?? null,
    ipv6: instance.Ipv6Address ?? null,
  };
}

/**
 * EC2's ClientToken for a key: the key itself when it fits EC2's limit (64 ASCII characters),
 * else a digest of it; the `cairn-key` tag always carries the key in full.
 */
export function clientTokenFor(key: string, digest: (text: string) => string): string {
  return key.length <= 64 && /^[\x20-\x7e]+$/.test(key) ? key : `cairn-${digest(key).slice(0, 40)}`;
}
