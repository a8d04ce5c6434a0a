/**
 * @module How a stored resource is shown to users: as a Kubernetes-style object (apiVersion,
 * kind, metadata, spec, status) for `-o json|yaml`, and as table rows for `cairn get`.
 */
import { API_VERSION, type Kind } from '../model/kinds.js';
import type { AnyStoredResource } from '../model/resource.js';

export interface ResourceObject {
  apiVersion: string;
  kind: Kind;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
    generation: number;
    resourceVersion: string;
    creationTimestamp: string;
    deletionTimestamp?: string;
    /** Who owns it: api, git:<id>, kubernetes. */
    source: string;
  };
  spec: unknown;
  status: Record<string, unknown>;
}

export function toResourceObject(r: AnyStoredResource): ResourceObject {
  const { appliedSpec: _applied, incarnation: _incarnation, details, ...status } = r.status;
  const visibleDetails = Object.fromEntries(Object.entries(details ?? {}).filter(([key]) => !key.endsWith('Digest')));
  return {
    apiVersion: API_VERSION,
    kind: r.kind,
    metadata: {
      name: r.name,
      namespace: r.namespace,
      uid: r.uid,
      labels: r.labels,
      annotations: r.annotations,
      generation: r.generation,
      resourceVersion: String(r.resourceVersion),
      creationTimestamp: r.createdAt,
      ...(r.deletionTimestamp ? { deletionTimestamp: r.deletionTimestamp } : {}),
      source: r.source,
    },
    spec: r.spec,
    status: { ...status, ...visibleDetails },
  };
}

export interface TableColumn {
  header: string;
  value(r: AnyStoredResource): string;
}

function ready(r: AnyStoredResource): string {
  const condition = r.status.conditions.find((c) => c.type === 'Ready');
  return condition?.status ?? 'Unknown';
}

function age(r: AnyStoredResource, now: number): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(r.createdAt)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

function endpoint(r: AnyStoredResource): string {
  const e = r.status.endpoints ?? {};
  if (r.kind === 'Server') return String(e.ipv4 ?? '<none>');
  if (r.kind === 'Database') return e.host ? `${String(e.host)}:${String(e.port ?? '')}` : '<none>';
  if (r.kind === 'App') return String(e.url ?? '<none>');
  return '';
}

function kindColumns(kind: Kind): TableColumn[] {
  switch (kind) {
    case 'Provider':
      return [{ header: 'VENDOR', value: (r) => (r.kind === 'Provider' ? r.spec.vendor : '') }];
    case 'SSHKey':
      return [{ header: 'FINGERPRINT', value: (r) => (r.kind === 'SSHKey' && typeof r.status.details?.fingerprint === 'string' ? r.status.details.fingerprint : '<none>') }];
    case 'Server':
      return [
        { header: 'REGION', value: (r) => (r.kind === 'Server' ? (r.spec.region ?? (r.spec.host !== undefined ? '(ssh)' : '')) : '') },
        { header: 'SIZE', value: (r) => (r.kind === 'Server' ? (r.spec.size ?? '') : '') },
        { header: 'IPV4', value: endpoint },
      ];
    case 'Database':
      return [
        { header: 'TYPE', value: (r) => (r.kind === 'Database' ? `${r.spec.type} ${r.spec.version}` : '') },
        { header: 'SERVER', value: (r) => (r.kind !== 'Database' ? '' : r.spec.managed === true ? `(managed: ${r.spec.provider ?? ''})` : (r.spec.server ?? '')) },
        { header: 'ENDPOINT', value: endpoint },
      ];
    case 'App':
      return [
        { header: 'SERVER', value: (r) => (r.kind === 'App' ? r.spec.server : '') },
        { header: 'URL', value: endpoint },
      ];
    case 'AlertRule':
      return [
        { header: 'METRIC', value: (r) => (r.kind === 'AlertRule' ? r.spec.metric : '') },
        { header: 'THRESHOLD', value: (r) => (r.kind === 'AlertRule' ? `> ${r.spec.threshold} for ${r.spec.forSeconds ?? 60}s` : '') },
      ];
  }
}

/** A kubectl-like table of resources of one kind. */
export function renderTable(kind: Kind, resources: readonly AnyStoredResource[], now = Date.now()): string {
  const columns: TableColumn[] = [
    { header: 'NAME', value: (r) => r.name },
    { header: 'NAMESPACE', value: (r) => r.namespace },
    { header: 'STATUS', value: (r) => (r.deletionTimestamp ? `${r.status.phase} (deleting)` : r.status.phase) },
    { header: 'READY', value: ready },
    ...kindColumns(kind),
    { header: 'AGE', value: (r) => age(r, now) },
  ];
  const rows = [columns.map((c) => c.header), ...resources.map((r) => columns.map((c) => c.value(r)))];
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('   ').trimEnd()).join('\n') + '\n';
}
