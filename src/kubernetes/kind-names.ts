/**
 * @module How each cairn kind is named in Kubernetes: group, version, plural, singular, short
 * names, categories, and the columns `kubectl get` shows (shared by the CRDs and by the Table
 * answers cairn's own Kubernetes endpoint gives).
 */
import { KINDS, PLURALS, type Kind } from '../model/kinds.js';

export const GROUP = 'cairn.dev';
export const VERSION = 'v1';
export const GROUP_VERSION = `${GROUP}/${VERSION}`;
export const CATEGORIES = ['cairn'] as const;

/** A printer column: JSONPath into the object, as in a CRD's additionalPrinterColumns. */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'date';
  jsonPath: string;
  description: string;
  priority?: number;
}

export interface KindNames {
  kind: Kind;
  plural: string;
  singular: string;
  shortNames: readonly string[];
  listKind: string;
  columns: readonly PrinterColumn[];
}

const STATUS: PrinterColumn = { name: 'Status', type: 'string', jsonPath: '.status.phase', description: 'What the resource is doing, in API.md\'s status values' };
const READY: PrinterColumn = { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', description: 'Whether the resource has converged' };
const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since creation' };

const COLUMNS: Record<Kind, readonly PrinterColumn[]> = {
  Provider: [{ name: 'Vendor', type: 'string', jsonPath: '.spec.vendor', description: 'The vendor' }, STATUS, READY, AGE],
  Server: [
    STATUS, READY,
    { name: 'Region', type: 'string', jsonPath: '.spec.region', description: 'The vendor\'s region' },
    { name: 'Size', type: 'string', jsonPath: '.spec.size', description: 'The vendor\'s size' },
    { name: 'IPv4', type: 'string', jsonPath: '.status.endpoints.ipv4', description: 'Public address' },
    AGE,
  ],
  Database: [
    { name: 'Type', type: 'string', jsonPath: '.spec.type', description: 'Engine' },
    STATUS, READY,
    { name: 'Host', type: 'string', jsonPath: '.status.endpoints.host', description: 'Where clients connect' },
    { name: 'Port', type: 'integer', jsonPath: '.status.endpoints.port', description: 'Port clients connect to' },
    AGE,
  ],
  SSHKey: [
    STATUS, READY,
    { name: 'Algorithm', type: 'string', jsonPath: '.status.details.algorithm', description: 'ed25519, rsa or ecdsa' },
    { name: 'Fingerprint', type: 'string', jsonPath: '.status.details.fingerprint', description: 'SHA256 fingerprint, as ssh-keygen -l prints it' },
    AGE,
  ],
  App: [STATUS, READY, { name: 'URL', type: 'string', jsonPath: '.status.endpoints.url', description: 'The app\'s endpoint' }, AGE],
  AlertRule: [
    { name: 'Metric', type: 'string', jsonPath: '.spec.metric', description: 'cpu_percent, memory_percent or disk_percent' },
    { name: 'Threshold', type: 'string', jsonPath: '.spec.threshold', description: 'Fires when the metric is strictly above it' },
    STATUS, READY, AGE,
  ],
};

const SHORT_NAMES: Record<Kind, readonly string[]> = { Provider: ['prov'], SSHKey: ['sshk'], Server: ['svr'], Database: ['db'], App: ['capp'], AlertRule: ['alr'] };

export const KIND_NAMES: Record<Kind, KindNames> = Object.fromEntries(
  KINDS.map((kind) => [kind, { kind, plural: PLURALS[kind], singular: kind.toLowerCase(), shortNames: SHORT_NAMES[kind], listKind: `${kind}List`, columns: COLUMNS[kind] }]),
) as Record<Kind, KindNames>;

/** The kind served under a plural resource name, if any. */
export function kindOfPlural(plural: string): Kind | undefined {
  return KINDS.find((k) => PLURALS[k] === plural);
}
