/**
 * @module `Table` answers (meta.k8s.io/v1) for kubectl's `get`: a Name column, then the kind's
 * printer columns (the CRD's), cells read with the columns' JSONPath, dates shown as ages the
 * way kube-apiserver shows them for custom resources.
 */
import type { Request } from 'express';
import { JSONPath } from 'jsonpath-plus';
import type { Kind } from '../../model/kinds.js';
import { KIND_NAMES } from '../../kubernetes/kind-names.js';
import type { KubeObject } from '../../kubernetes/kube-object.js';

/** Whether the client asked for a Table (kubectl's Accept lists it first). */
export function wantsTable(req: Request): boolean {
  return (req.get('Accept') ?? '').split(',').some((part) => /as=Table/.test(part) && /g=meta\.k8s\.io/.test(part) && /v=v1(?!beta)/.test(part));
}

/** kube-apiserver's short age (k8s.io/apimachinery duration.HumanDuration). */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 192) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (days < 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (years < 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

function cell(object: KubeObject, jsonPath: string, type: string, now: number): unknown {
  const found = JSONPath<unknown[]>({ path: `$${jsonPath}`, json: object, wrap: true });
  const value = found[0];
  if (value === undefined || value === null) return type === 'integer' ? null : '';
  if (type === 'date') return typeof value === 'string' ? humanDuration(now - Date.parse(value)) : '';
  return value;
}

export interface TableOptions {
  /** `Object` (whole objects), `Metadata` (kubectl's default) or `None`. */
  includeObject: 'Object' | 'Metadata' | 'None';
  resourceVersion: string;
  continueToken?: string | undefined;
}

export function includeObjectOf(req: Request): TableOptions['includeObject'] {
  const value = req.query.includeObject;
  return value === 'Object' || value === 'None' ? value : 'Metadata';
}

/** The Table of `objects` of one kind. */
export function toTable(kind: Kind, objects: readonly KubeObject[], options: TableOptions): Record<string, unknown> {
  const columns = KIND_NAMES[kind].columns;
  const now = Date.now();
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: options.resourceVersion, ...(options.continueToken ? { continue: options.continueToken } : {}) },
    columnDefinitions: [
      { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
      ...columns.map((c) => ({ name: c.name, type: c.type === 'date' ? 'date' : c.type, format: '', description: c.description, priority: c.priority ?? 0 })),
    ],
    rows: objects.map((object) => ({
      cells: [object.metadata.name, ...columns.map((c) => cell(object, c.jsonPath, c.type, now))],
      ...(options.includeObject === 'None'
        ? {}
        : { object: options.includeObject === 'Object' ? object : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata } }),
    })),
  };
}
