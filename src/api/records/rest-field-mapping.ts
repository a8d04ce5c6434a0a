/**
 * @module The declared mapping between each kind's manifest spec (schemas/<kind>.schema.json)
 * and its REST fields (snake_case, API.md), for what convention does not settle. By convention
 * a spec field `fooBar` is the REST field `foo_bar`, whose value is the OpenAPI component
 * `<Kind>FooBar`, taken by create and update bodies, and shown by the record (its schema
 * default when the spec leaves it out, else null); a nested spec field is `parent_child`.
 * `scripts/openapi-components.ts` (`npm run gen`) applies this to the JSON Schemas and writes
 * the full table (src/api/records/generated/rest-fields.ts, which the codecs use) and each
 * kind's components in schemas/openapi.yaml, so a field added to a schema reaches REST with
 * no hand edit, with the schema's type, range, default and required-ness.
 */
import type { Kind } from '../../model/kinds.js';

/** How one spec field differs from the convention. */
export interface FieldMapping {
  /** The REST field; by convention the snake_case of the spec path (`backup.schedule` → `backup_schedule`). */
  rest?: string;
  /** The OpenAPI component of its value; by convention `<Kind><PascalCasePath>`. A single reference has none (it is a `Uuid`). */
  component?: string;
  /** The field names another resource: the manifest by its name, REST by its id (a UUID). */
  references?: Kind;
  /** Taken by create bodies (default true). */
  create?: boolean;
  /**
   * Taken by update bodies: `set` (the default) a new value, `clearable` a new value or null
   * (null takes it out of the spec), false when it cannot change that way.
   */
  update?: 'set' | 'clearable' | false;
  /** The record shows an empty map or list, rather than null, when the spec leaves it out. */
  emptyWhenAbsent?: boolean;
  /** Null in an update takes out the object around the field too (that object requires it). */
  clearsParent?: boolean;
  /** The REST field's description when the schema's (which speaks of names) does not fit it. */
  description?: string;
  /** Taken by bodies but never shown by records (it may hold secrets, like a server's user data). */
  writeOnly?: boolean;
  /**
   * Taken by bodies as asked; the record shows under the same name what the resource turned out
   * to be (from its status, by the codec), not the spec's value — an SSH key's algorithm is
   * `ecdsa` for an imported ECDSA key, whose spec names no algorithm.
   */
  recordShowsObserved?: boolean;
}

export interface KindMapping {
  /** By spec path (dotted for a nested field that REST flattens). */
  fields: Readonly<Record<string, FieldMapping>>;
  /** Spec fields (dotted paths) with no REST twin, and why. */
  specOnly: Readonly<Record<string, string>>;
  /** REST fields with no spec twin, by body: the field and the hand-written component it takes. */
  restOnly: { create: Readonly<Record<string, string>>; update: Readonly<Record<string, string>> };
}

/** `metadata.name` and `metadata.labels`, the same for every kind: REST field → component. */
export const METADATA_COMPONENTS = { name: 'Name', labels: 'Labels' } as const;

export const REST_FIELD_MAPPING: Readonly<Record<Kind, KindMapping>> = {
  Provider: {
    fields: {
      vendor: { component: 'VendorId', update: false },
      endpoint: { component: 'ProviderEndpoint', update: 'clearable' },
    },
    specOnly: {
      credentialsRef: 'REST takes the credential bundle itself (`credentials`), stores it encrypted under the provider\'s name and points `credentialsRef.secret` at it',
    },
    restOnly: { create: { credentials: 'Credentials' }, update: { credentials: 'Credentials' } },
  },
  SSHKey: {
    fields: {
      publicKey: { update: false, recordShowsObserved: true, description: 'A public key to import (one authorized_keys line, never a private key); leave it out to have cairn generate the pair.' },
      algorithm: { update: false, recordShowsObserved: true },
      bits: { update: false, recordShowsObserved: true },
    },
    specOnly: {},
    restOnly: { create: { return_private_key: 'ReturnPrivateKey' }, update: {} },
  },
  Server: {
    fields: {
      provider: { rest: 'provider_id', references: 'Provider', update: false },
      region: { update: false },
      image: { component: 'OsImage' },
      userData: { update: false, writeOnly: true },
      sshKeys: {
        rest: 'ssh_key_ids', component: 'SshKeyIds', references: 'SSHKey', update: false, emptyWhenAbsent: true,
        description: 'Ids of the SSH keys the server accepts from its first boot (with cairn\'s own key); read once, at creation.',
      },
      host: { component: 'ServerSshHost', update: false },
      port: { component: 'ServerSshPort', update: false },
      user: { component: 'ServerSshUser', update: false },
    },
    specOnly: {},
    restOnly: { create: {}, update: {} },
  },
  Database: {
    fields: {
      type: { component: 'DatabaseType', update: false },
      server: { rest: 'server_id', references: 'Server', update: false },
      managed: { component: 'DatabaseManaged', update: false },
      provider: { rest: 'provider_id', references: 'Provider', update: false },
      region: { component: 'DatabaseRegion', update: false },
      size: { component: 'DatabaseSize' },
      version: { component: 'DatabaseVersion' },
      storageGb: { component: 'StorageGb' },
      'backup.schedule': { component: 'BackupSchedule', update: 'clearable', clearsParent: true },
      'backup.retention': { component: 'BackupRetention' },
    },
    specOnly: {},
    restOnly: { create: {}, update: {} },
  },
  App: {
    fields: {
      server: { rest: 'server_id', references: 'Server', update: false },
      build: { update: 'clearable' },
      command: { update: 'clearable' },
      port: { update: 'clearable' },
      env: { emptyWhenAbsent: true },
      databases: {
        rest: 'database_ids', component: 'DatabaseIds', references: 'Database', emptyWhenAbsent: true,
        description: 'Ids of the databases whose URLs are injected: `DATABASE_URL` for the first, `<NAME>_URL` for each.',
      },
      'healthCheck.path': { rest: 'health_check_path', component: 'HealthCheckPath', update: 'clearable' },
    },
    specOnly: {
      'healthCheck.timeoutSeconds': 'not offered over REST (API.md has no such field); apps made through the API wait the default 30 s',
    },
    restOnly: { create: {}, update: {} },
  },
  AlertRule: {
    fields: {
      channels: { emptyWhenAbsent: true, description: 'Where notifications go: `{type: email, to}` or `{type: webhook, url, format: slack|discord|json}` (json is signed with the `webhook_secret` the create answers once).' },
    },
    specOnly: {
      selector: 'REST names servers by id: `selector: {labels, server_ids}` (the hand-written AlertRuleSelectorBody), which the codec turns into the manifest\'s `{labels, servers}` (names)',
    },
    restOnly: { create: { selector: 'AlertRuleSelectorBody' }, update: { selector: 'AlertRuleSelectorBody' } },
  },
};
