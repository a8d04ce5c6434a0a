/**
 * @module Servers between REST and manifests: the record the API shows, and the Server
 * manifest a create or update body becomes.
 */
import type { ServerSpec } from '../../model/generated/kinds.js';
import { effectiveDeletionPolicy, type Manifest, type StoredResource } from '../../model/resource.js';
import { ValidationError } from '../../model/errors.js';
import { serverFieldIssues } from '../../model/server-vendor-fields.js';
import { apiMetadata, baseRecord, keptMetadata, type BaseRecord } from './common.js';
import type { ResourceLookup } from './lookup.js';
import { applyBodyFields, specRecordFields } from './rest-fields.js';

export interface ServerRecord extends BaseRecord {
  provider_id: string | null;
  region: string | null;
  size: string | null;
  host: string | null;
  port: number;
  user: string;
  image: string;
  ipv4: string | null;
  ipv6: string | null;
  power: 'on' | 'off' | null;
  /** The SSH keys installed at creation (those that still exist). */
  ssh_key_ids: string[];
  state: 'running' | 'stopped';
  /** What deleting it does at the vendor: as stated, else Orphan for an imported server and Delete otherwise. */
  deletion_policy: 'Delete' | 'Orphan';
}

export interface ServerCreateBody {
  name: string;
  provider_id: string;
  region?: string;
  size?: string;
  host?: string;
  port?: number;
  user?: string;
  image?: string;
  ssh_key_ids?: string[];
  labels?: Record<string, string>;
  state?: 'running' | 'stopped';
}

export interface ServerUpdateBody {
  size?: string;
  image?: string;
  labels?: Record<string, string>;
  state?: 'running' | 'stopped';
}

export const DEFAULT_IMAGE = 'debian-12';

/** `on` or `off` once the vendor has said; null while it is in between or unknown. */
function powerOf(value: unknown): 'on' | 'off' | null {
  return value === 'on' || value === 'off' ? value : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function serverRecord(r: StoredResource<'Server'>, lookup: ResourceLookup): ServerRecord {
  const endpoints = r.status.endpoints ?? {};
  return {
    ...baseRecord(r),
    ...(specRecordFields('Server', r.spec) as Pick<ServerRecord, 'region' | 'size' | 'host' | 'port' | 'user' | 'image' | 'state'>),
    provider_id: lookup.idOf('Provider', r.spec.provider, r.namespace),
    ipv4: text(endpoints.ipv4),
    ipv6: text(endpoints.ipv6),
    power: powerOf(r.status.details?.power),
    ssh_key_ids: (r.spec.sshKeys ?? []).map((name) => lookup.idOf('SSHKey', name, r.namespace)).filter((id): id is string => id !== null),
    deletion_policy: effectiveDeletionPolicy(r),
  };
}

/** `sshKeyNames`: the names of the SSHKeys `ssh_key_ids` names, in order. */
export function serverManifest(body: ServerCreateBody, providerName: string, sshKeyNames: string[] = []): Manifest<'Server'> {
  const spec: ServerSpec = { provider: providerName, image: DEFAULT_IMAGE };
  applyBodyFields('Server', 'create', body, spec);
  if (sshKeyNames.length > 0) spec.sshKeys = sshKeyNames;
  return { apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: apiMetadata(body.name, body.labels), spec };
}

export function updatedServerManifest(current: StoredResource<'Server'>, body: ServerUpdateBody): Manifest<'Server'> {
  const spec: ServerSpec = { ...current.spec };
  applyBodyFields('Server', 'update', body, spec);
  return { apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: keptMetadata(current, body.labels), spec };
}

/**
 * Throws a 422 naming each field the provider's vendor does not take or needs (see
 * server-vendor-fields.ts): `host` for an `ssh` provider, `region` and `size` for any other.
 */
export function checkServerFieldsForVendor(spec: ServerSpec, provider: StoredResource<'Provider'>): void {
  const issues = serverFieldIssues(provider.spec.vendor, provider.name, spec).map((i) => ({ pointer: `/${i.field === 'userData' ? 'user_data' : i.field === 'sshKeys' ? 'ssh_key_ids' : i.field}`, message: i.message }));
  if (issues.length > 0) throw new ValidationError(issues.map((i) => `${i.pointer.slice(1)}: ${i.message}`).join('; '), issues);
}
