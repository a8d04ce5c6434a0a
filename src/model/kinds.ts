/**
 * @module The cairn.dev/v1 kinds: their names, the order they are created in, the fields that
 * reference other resources, the fields whose change forces a replacement, and the status
 * values each kind's `status.phase` takes (API.md's "Status values").
 */
import type { AlertRuleSpec, AppSpec, DatabaseSpec, ProviderSpec, ServerSpec, SSHKeySpec } from './generated/kinds.js';

export const API_VERSION = 'cairn.dev/v1';

/** Creation order: a kind may only reference kinds before it. Deletes run in reverse. */
export const KINDS = ['Provider', 'SSHKey', 'Server', 'Database', 'App', 'AlertRule'] as const;
export type Kind = (typeof KINDS)[number];

export interface SpecByKind {
  Provider: ProviderSpec;
  SSHKey: SSHKeySpec;
  Server: ServerSpec;
  Database: DatabaseSpec;
  App: AppSpec;
  AlertRule: AlertRuleSpec;
}

export function isKind(value: unknown): value is Kind {
  return typeof value === 'string' && (KINDS as readonly string[]).includes(value);
}

/** The rank of a kind in creation order (Provider 0 … AlertRule 5). */
export function kindRank(kind: Kind): number {
  return KINDS.indexOf(kind);
}

/** A spec field that names another resource of the same namespace. */
export interface ReferenceField {
  /** JSON pointer inside the manifest, e.g. `/spec/server`. An array field yields one reference per item. */
  pointer: string;
  field: string;
  target: Kind;
  /** The field holds a list of names rather than one. */
  many: boolean;
}

export const REFERENCE_FIELDS: Record<Kind, readonly ReferenceField[]> = {
  Provider: [],
  SSHKey: [],
  Server: [
    { pointer: '/spec/provider', field: 'provider', target: 'Provider', many: false },
    { pointer: '/spec/sshKeys', field: 'sshKeys', target: 'SSHKey', many: true },
  ],
  Database: [
    { pointer: '/spec/server', field: 'server', target: 'Server', many: false },
    { pointer: '/spec/provider', field: 'provider', target: 'Provider', many: false },
  ],
  App: [
    { pointer: '/spec/server', field: 'server', target: 'Server', many: false },
    { pointer: '/spec/databases', field: 'databases', target: 'Database', many: true },
  ],
  // An AlertRule's selector.servers are names matched when it is evaluated, not references: a rule
  // never holds a server back from deletion, and a name no server has yet selects nothing.
  AlertRule: [],
};

/** Top-level spec fields whose change cannot be made in place: the resource is replaced. */
export const REPLACEMENT_FIELDS: Record<Kind, readonly string[]> = {
  Provider: ['vendor'],
  // A generated key is a new pair; an imported one is another key.
  SSHKey: ['publicKey', 'algorithm', 'bits'],
  // Vendors read userData and the keys to install (sshKeys) at the first boot only.
  Server: ['provider', 'region', 'image', 'userData', 'sshKeys', 'host', 'port', 'user'],
  Database: ['type', 'server', 'managed', 'provider', 'region'],
  App: ['server'],
  AlertRule: [],
};

/** Spec paths (dotted, `*` for any key) whose values are secret and masked in plans and logs. */
export const SENSITIVE_PATHS: Record<Kind, readonly string[]> = {
  Provider: [],
  SSHKey: [],
  Server: ['userData'],
  Database: [],
  App: ['env.*'],
  AlertRule: [],
};

/** Plural resource names, as used by `cairn get` and the Kubernetes-style API. */
export const PLURALS: Record<Kind, string> = {
  Provider: 'providers',
  SSHKey: 'sshkeys',
  Server: 'servers',
  Database: 'databases',
  App: 'apps',
  AlertRule: 'alertrules',
};

/** Resolves what a user typed for a kind (`server`, `servers`, `Server`, `db`) to the kind. */
export function parseKindName(text: string): Kind | undefined {
  const lower = text.toLowerCase();
  const aliases: Record<string, Kind> = { db: 'Database', dbs: 'Database', svr: 'Server', 'ssh-key': 'SSHKey', 'ssh-keys': 'SSHKey', 'alert-rule': 'AlertRule', 'alert-rules': 'AlertRule' };
  if (aliases[lower]) return aliases[lower];
  return KINDS.find((k) => k.toLowerCase() === lower || PLURALS[k] === lower);
}

/** API.md's status values, the only values `status.phase` takes for each kind. */
export const PHASES = {
  Provider: ['untested', 'valid', 'invalid'],
  SSHKey: ['pending', 'ready', 'error', 'deleting'],
  Server: ['pending', 'provisioning', 'running', 'stopping', 'stopped', 'starting', 'rebooting', 'deleting', 'error'],
  Database: ['pending', 'creating', 'available', 'backing_up', 'restoring', 'deleting', 'error'],
  App: ['pending', 'deploying', 'running', 'stopping', 'stopped', 'failed', 'deleting'],
  AlertRule: ['pending', 'ready', 'error', 'deleting'],
} as const satisfies Record<Kind, readonly string[]>;

export type Phase<K extends Kind = Kind> = (typeof PHASES)[K][number];

/** The phases in which a resource of a kind has converged and is usable. */
export const READY_PHASES: Record<Kind, readonly string[]> = {
  Provider: ['valid'],
  SSHKey: ['ready'],
  Server: ['running', 'stopped'],
  Database: ['available'],
  App: ['running', 'stopped'],
  AlertRule: ['ready'],
};
