/**
 * @module Providers between REST and manifests: the record (credentials never shown, only the
 * last four characters as a hint) and the Provider manifest whose credentials are stored
 * encrypted under the provider's name.
 */
import type { CredentialField } from '../../drivers/contract.js';
import { ValidationError, type FieldIssue } from '../../model/errors.js';
import type { ProviderSpec } from '../../model/generated/kinds.js';
import type { Manifest, StoredResource } from '../../model/resource.js';
import type { SecretStore } from '../../secrets/secret-store.js';
import { apiMetadata, baseRecord, keptMetadata, type BaseRecord } from './common.js';
import { applyBodyFields, specRecordFields } from './rest-fields.js';

export interface ProviderRecord extends BaseRecord {
  vendor: string;
  endpoint: string | null;
  credentials_hint: string | null;
  tested_at: string | null;
}

export interface ProviderCreateBody {
  name: string;
  vendor: string;
  /** Left out (or empty) for a vendor whose credential fields are all optional. */
  credentials?: Record<string, string>;
  endpoint?: string;
  labels?: Record<string, string>;
}

export interface ProviderUpdateBody {
  credentials?: Record<string, string>;
  endpoint?: string | null;
  labels?: Record<string, string>;
}

/** The stored credential bundle of a provider, decrypted; undefined when it has none. */
export function storedCredentials(secrets: SecretStore, r: StoredResource<'Provider'>): Record<string, string> | undefined {
  const name = r.spec.credentialsRef?.secret;
  const text = name === undefined ? undefined : secrets.get(r.tenant, 'provider-credentials', name);
  return text === undefined ? undefined : (JSON.parse(text) as Record<string, string>);
}

/** `…wxyz`: the last four characters of the bundle's first non-empty value. */
function hintOf(credentials: Record<string, string> | undefined): string | null {
  const value = Object.values(credentials ?? {}).find((v) => v.length > 0);
  if (value === undefined) return null;
  return value.length <= 4 ? '…' : `…${value.slice(-4)}`;
}

export function providerRecord(r: StoredResource<'Provider'>, secrets: SecretStore): ProviderRecord {
  const testedAt = r.status.details?.testedAt;
  return {
    ...baseRecord(r),
    ...(specRecordFields('Provider', r.spec) as Pick<ProviderRecord, 'vendor' | 'endpoint'>),
    credentials_hint: hintOf(storedCredentials(secrets, r)),
    tested_at: typeof testedAt === 'string' ? testedAt : null,
  };
}

/** Checks a bundle against the vendor's fields: unknown ones and missing required ones are 422. */
export function checkCredentials(credentials: Record<string, string>, fields: readonly CredentialField[], vendor: string): void {
  const known = new Set(fields.map((f) => f.name));
  const issues: FieldIssue[] = [
    ...Object.keys(credentials)
      .filter((key) => !known.has(key))
      .map((key) => ({ pointer: `/credentials/${key}`, message: `vendor ${vendor} takes no credential "${key}" (it takes: ${[...known].join(', ') || 'none'})` })),
    ...fields
      .filter((f) => f.required && !credentials[f.name])
      .map((f) => ({ pointer: `/credentials/${f.name}`, message: `is required by vendor ${vendor}: ${f.description}` })),
  ];
  if (issues.length > 0) throw new ValidationError(issues.map((i) => `${i.pointer}: ${i.message}`).join('; '), issues);
}

/** The secret name a provider's credentials are kept under: the provider's own name. */
export function credentialsName(providerName: string): string {
  return providerName;
}

/** Whether a create body carries credentials to store; without, the provider has no `credentialsRef`. */
export function hasCredentials(body: ProviderCreateBody): body is ProviderCreateBody & { credentials: Record<string, string> } {
  return body.credentials !== undefined && Object.keys(body.credentials).length > 0;
}

export function providerManifest(body: ProviderCreateBody): Manifest<'Provider'> {
  const spec: ProviderSpec = { vendor: body.vendor };
  if (hasCredentials(body)) spec.credentialsRef = { secret: credentialsName(body.name) };
  applyBodyFields('Provider', 'create', body, spec);
  return { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: apiMetadata(body.name, body.labels), spec };
}

export function updatedProviderManifest(current: StoredResource<'Provider'>, body: ProviderUpdateBody, credentialsChanged: boolean): Manifest<'Provider'> {
  const spec: ProviderSpec = { ...current.spec };
  applyBodyFields('Provider', 'update', body, spec);
  if (credentialsChanged) spec.credentialsRef = { secret: credentialsName(current.name) };
  // The driver pool remakes a provider's drivers when its metadata or spec changes, so the
  // rotation time in an annotation is what brings new credentials into use.
  const annotations = credentialsChanged ? { 'cairn.dev/credentials-rotated-at': new Date().toISOString() } : undefined;
  return { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: keptMetadata(current, body.labels, annotations), spec };
}
