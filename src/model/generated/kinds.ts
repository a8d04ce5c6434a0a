/* eslint-disable */
/**
 * @module Types of the cairn.dev/v1 kinds, GENERATED from schemas/*.schema.json by
 * `npm run gen:types`. Do not edit by hand: change the schema and regenerate.
 */

/**
 * An account at a cloud vendor that servers are created in.
 */
export interface Provider {
  /**
   * Always cairn.dev/v1.
   */
  apiVersion: "cairn.dev/v1";
  kind: "Provider";
  metadata: ObjectMeta;
  spec: ProviderSpec;
  /**
   * Written by cairn; ignored on input.
   */
  status?: {};
}

/**
 * Identity of a cairn resource, in Kubernetes' shape.
 */
export interface ObjectMeta {
  /**
   * DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter or digit; unique per tenant, namespace and kind; immutable.
   */
  name: string;
  /**
   * Namespace inside the tenant (DNS-1123 label). Defaults to 'default'.
   */
  namespace?: string;
  /**
   * Key/value pairs for selecting and grouping resources.
   */
  labels?: {
    [k: string]: string;
  };
  /**
   * Free-form notes. Keys under 'cairn.dev/' are cairn's own: 'cairn.dev/self-heal' ("false" turns drift correction into a report), 'cairn.dev/revision' (set by git sources) and 'cairn.dev/external-id' (the vendor's id of an existing resource to import instead of creating one; written back by cairn on custom resources).
   */
  annotations?: {
    [k: string]: string;
  };
}

export interface ProviderSpec {
  /**
   * Which vendor: 'sandbox' (cairn's simulated cloud), 'local' (this host), 'ssh' (existing hosts you own, reached over SSH: its Servers name them with host, port and user), or a cloud vendor's id.
   */
  vendor: string;
  /**
   * Base URL of the vendor's API. Sandbox only: the address of a separate `cairn sandbox-cloud`, e.g. http://127.0.0.1:9100. Without it the sandbox runs inside cairn.
   */
  endpoint?: string;
  credentialsRef?: CredentialsRef;
}

/**
 * Where the credentials come from. Never inline secrets in a manifest.
 */
export interface CredentialsRef {
  /**
   * Name of an environment variable of the cairn process that holds the token.
   */
  env?: string;
  /**
   * Name of credentials stored through the API.
   */
  secret?: string;
}

export type SSHKeySpec = {
  /**
   * A public key to import, one line as in authorized_keys or a .pub file: ssh-ed25519, ssh-rsa (2048 bits or more) or ecdsa-sha2-nistp256/384/521, its base64, and an optional comment. Leave it out to have cairn generate the pair. Never a private key. Changing it replaces the key.
   */
  publicKey?: string;
  /**
   * The kind of pair cairn generates when there is no publicKey: ed25519 (when left out) or rsa. Not with publicKey. Changing it replaces the key.
   */
  algorithm?: "ed25519" | "rsa";
  /**
   * The size of a generated RSA key: 3072 (when left out) or 4096. Only with algorithm: rsa. Changing it replaces the key.
   */
  bits?: 3072 | 4096;
};

/**
 * An SSH key that servers accept at their first boot: a public key imported (publicKey), or a pair cairn generates and whose private key it keeps sealed.
 */
export interface SSHKey {
  /**
   * Always cairn.dev/v1.
   */
  apiVersion: "cairn.dev/v1";
  kind: "SSHKey";
  metadata: ObjectMeta;
  spec: SSHKeySpec;
  /**
   * Written by cairn; ignored on input.
   */
  status?: {};
}

/**
 * A virtual machine at a Provider.
 */
export interface Server {
  /**
   * Always cairn.dev/v1.
   */
  apiVersion: "cairn.dev/v1";
  kind: "Server";
  metadata: ObjectMeta;
  spec: ServerSpec;
  /**
   * Written by cairn; ignored on input.
   */
  status?: {};
}

export interface ServerSpec {
  /**
   * Name of the Provider (same namespace) to create the server at. Changing it replaces the server.
   */
  provider: string;
  /**
   * The vendor's region slug, e.g. eu-1 on the sandbox. Required for every vendor but `ssh` (whose servers are existing hosts: leave it out there). Changing it replaces the server.
   */
  region?: string;
  /**
   * The vendor's size slug, e.g. small, medium, large on the sandbox. Required for every vendor but `ssh` (leave it out there). Changed in place (a resize).
   */
  size?: string;
  /**
   * For a Provider of vendor `ssh` only, and required there: the existing host to adopt, a host name or IP address reached over SSH with cairn's runtime key (GET /ssh-keys/runtime, in the user's authorized_keys). Changing it replaces the server (a different host is a different server).
   */
  host?: string;
  /**
   * For a Provider of vendor `ssh` only: the host's SSH port. Changing it replaces the server.
   */
  port?: number;
  /**
   * For a Provider of vendor `ssh` only: the POSIX user cairn logs in as (root, or a user that may run what cairn installs). Changing it replaces the server.
   */
  user?: string;
  /**
   * Operating system image. Changing it replaces the server.
   */
  image?: string;
  /**
   * Cloud-init user data for the server's first boot: a #cloud-config document, a shell script (#!) or anything else cloud-init reads. The vendor receives it at creation (base64 where its API wants that); changing it replaces the server, as the vendors read it only once. A #cloud-config document must be a YAML mapping.
   */
  userData?: string;
  /**
   * Names of the SSHKeys (same namespace) whose public keys the server accepts from its first boot, with cairn's own key. The vendors read them once, at creation: changing the list replaces the server.
   *
   * @maxItems 50
   */
  sshKeys?: string[];
  /**
   * Desired power state.
   */
  state?: "running" | "stopped";
  /**
   * What deleting the resource does at the vendor: Delete the server, or Orphan (leave it in place). Unset: Delete, except for a server imported with the cairn.dev/external-id annotation, which is left in place (Orphan) until the manifest says Delete.
   */
  deletionPolicy?: "Delete" | "Orphan";
}

export type DatabaseSpec = {
  /**
   * Database engine. Changing it replaces the database.
   */
  type: "postgresql" | "mongodb";
  /**
   * Name of the Server (same namespace) the database runs on; required unless managed. Changing it replaces the database.
   */
  server?: string;
  /**
   * true: the vendor of `provider` runs it as its managed database service (in `region`, of `size`), with the vendor's own backups and restore; no Server is involved. Changing it replaces the database.
   */
  managed?: boolean;
  /**
   * Managed databases only: name of the Provider (same namespace) whose vendor runs it. Changing it replaces the database.
   */
  provider?: string;
  /**
   * Managed databases only: the vendor's region slug for it. Changing it replaces the database.
   */
  region?: string;
  /**
   * Managed databases only: the vendor's slug for the size of its database nodes, e.g. db-s-1vcpu-1gb at DigitalOcean (the README's section on each vendor names them). Changed in place where the vendor can.
   */
  size?: string;
  /**
   * Major version of the engine, as a string, e.g. "16".
   */
  version: string;
  /**
   * Storage in gigabytes (postgresql only).
   */
  storageGb?: number;
  backup?: BackupPolicy;
  /**
   * What deleting the resource does at the vendor: Delete (after a final backup) or Orphan (leave it in place). Unset: Delete, except for a database imported with the cairn.dev/external-id annotation, which is left in place (Orphan) until the manifest says Delete.
   */
  deletionPolicy?: "Delete" | "Orphan";
};

/**
 * A database placed on a Server, or run by a vendor as its managed database service.
 */
export interface Database {
  /**
   * Always cairn.dev/v1.
   */
  apiVersion: "cairn.dev/v1";
  kind: "Database";
  metadata: ObjectMeta;
  spec: DatabaseSpec;
  /**
   * Written by cairn; ignored on input.
   */
  status?: {};
}

/**
 * Scheduled backups.
 */
export interface BackupPolicy {
  /**
   * Cron expression (five fields, UTC), e.g. "0 3 * * *".
   */
  schedule: string;
  /**
   * How many scheduled backups to keep.
   */
  retention?: number;
}

/**
 * An application deployed on a Server.
 */
export interface App {
  /**
   * Always cairn.dev/v1.
   */
  apiVersion: "cairn.dev/v1";
  kind: "App";
  metadata: ObjectMeta;
  spec: AppSpec;
  /**
   * Written by cairn; ignored on input.
   */
  status?: {};
}

export interface AppSpec {
  /**
   * Name of the Server (same namespace) the app runs on. Changing it replaces the app.
   */
  server: string;
  source: AppSource;
  /**
   * Command that builds a release, e.g. "npm ci".
   */
  build?: string;
  /**
   * Command that starts the app.
   */
  command?: string;
  /**
   * Port the app listens on (it also gets PORT in its environment).
   */
  port?: number;
  /**
   * Environment variables.
   */
  env?: {
    [k: string]: string;
  };
  /**
   * Names of Databases (same namespace) whose URLs are injected: DATABASE_URL for the first, <NAME>_URL for each.
   *
   * @maxItems 32
   */
  databases?: string[];
  healthCheck?: HealthCheck;
  /**
   * Desired run state.
   */
  state?: "running" | "stopped";
}

/**
 * Where the code comes from: exactly one of git, image or path.
 */
export interface AppSource {
  git?: GitSource;
  /**
   * Container image reference.
   */
  image?: string;
  /**
   * A folder on the server.
   */
  path?: string;
}

export interface GitSource {
  /**
   * Clone URL (http, https or file).
   */
  url: string;
  /**
   * Branch, tag or commit.
   */
  ref?: string;
  /**
   * Folder inside the repository.
   */
  path?: string;
}

/**
 * How to tell the app is up: an HTTP path, or a TCP connect when no path is given.
 */
export interface HealthCheck {
  /**
   * HTTP path that answers 2xx or 3xx when the app is up; without one, a TCP connection to the app's port is the check.
   */
  path?: string;
  timeoutSeconds?: number;
}

export type AlertChannel = {
  /**
   * email or webhook.
   */
  type: "email" | "webhook";
  /**
   * email: the address notified.
   */
  to?: string;
  /**
   * webhook: the http(s) URL posted to, without credentials in it; called through cairn's outbound guard.
   */
  url?: string;
  /**
   * webhook: the body's form, slack ({text, blocks}), discord ({content, embeds}) or json ({event, alert, rule}, signed with X-Cairn-Signature-256).
   */
  format?: "slack" | "discord" | "json";
} & {
  /**
   * email or webhook.
   */
  type: "email" | "webhook";
  /**
   * email: the address notified.
   */
  to?: string;
  /**
   * webhook: the http(s) URL posted to, without credentials in it; called through cairn's outbound guard.
   */
  url?: string;
  /**
   * webhook: the body's form, slack ({text, blocks}), discord ({content, embeds}) or json ({event, alert, rule}, signed with X-Cairn-Signature-256).
   */
  format?: "slack" | "discord" | "json";
} & {
  /**
   * email or webhook.
   */
  type: "email" | "webhook";
  /**
   * email: the address notified.
   */
  to?: string;
  /**
   * webhook: the http(s) URL posted to, without credentials in it; called through cairn's outbound guard.
   */
  url?: string;
  /**
   * webhook: the body's form, slack ({text, blocks}), discord ({content, embeds}) or json ({event, alert, rule}, signed with X-Cairn-Signature-256).
   */
  format?: "slack" | "discord" | "json";
} & {
  /**
   * email or webhook.
   */
  type: "email" | "webhook";
  /**
   * email: the address notified.
   */
  to?: string;
  /**
   * webhook: the http(s) URL posted to, without credentials in it; called through cairn's outbound guard.
   */
  url?: string;
  /**
   * webhook: the body's form, slack ({text, blocks}), discord ({content, embeds}) or json ({event, alert, rule}, signed with X-Cairn-Signature-256).
   */
  format?: "slack" | "discord" | "json";
} & {
  /**
   * email or webhook.
   */
  type: "email" | "webhook";
  /**
   * email: the address notified.
   */
  to?: string;
  /**
   * webhook: the http(s) URL posted to, without credentials in it; called through cairn's outbound guard.
   */
  url?: string;
  /**
   * webhook: the body's form, slack ({text, blocks}), discord ({content, embeds}) or json ({event, alert, rule}, signed with X-Cairn-Signature-256).
   */
  format?: "slack" | "discord" | "json";
} & {
  /**
   * email or webhook.
   */
  type: "email" | "webhook";
  /**
   * email: the address notified.
   */
  to?: string;
  /**
   * webhook: the http(s) URL posted to, without credentials in it; called through cairn's outbound guard.
   */
  url?: string;
  /**
   * webhook: the body's form, slack ({text, blocks}), discord ({content, embeds}) or json ({event, alert, rule}, signed with X-Cairn-Signature-256).
   */
  format?: "slack" | "discord" | "json";
} & {
  /**
   * email or webhook.
   */
  type: "email" | "webhook";
  /**
   * email: the address notified.
   */
  to?: string;
  /**
   * webhook: the http(s) URL posted to, without credentials in it; called through cairn's outbound guard.
   */
  url?: string;
  /**
   * webhook: the body's form, slack ({text, blocks}), discord ({content, embeds}) or json ({event, alert, rule}, signed with X-Cairn-Signature-256).
   */
  format?: "slack" | "discord" | "json";
} & {
  /**
   * email or webhook.
   */
  type: "email" | "webhook";
  /**
   * email: the address notified.
   */
  to?: string;
  /**
   * webhook: the http(s) URL posted to, without credentials in it; called through cairn's outbound guard.
   */
  url?: string;
  /**
   * webhook: the body's form, slack ({text, blocks}), discord ({content, embeds}) or json ({event, alert, rule}, signed with X-Cairn-Signature-256).
   */
  format?: "slack" | "discord" | "json";
} & {
  /**
   * email or webhook.
   */
  type: "email" | "webhook";
  /**
   * email: the address notified.
   */
  to?: string;
  /**
   * webhook: the http(s) URL posted to, without credentials in it; called through cairn's outbound guard.
   */
  url?: string;
  /**
   * webhook: the body's form, slack ({text, blocks}), discord ({content, embeds}) or json ({event, alert, rule}, signed with X-Cairn-Signature-256).
   */
  format?: "slack" | "discord" | "json";
} & {
  /**
   * email or webhook.
   */
  type: "email" | "webhook";
  /**
   * email: the address notified.
   */
  to?: string;
  /**
   * webhook: the http(s) URL posted to, without credentials in it; called through cairn's outbound guard.
   */
  url?: string;
  /**
   * webhook: the body's form, slack ({text, blocks}), discord ({content, embeds}) or json ({event, alert, rule}, signed with X-Cairn-Signature-256).
   */
  format?: "slack" | "discord" | "json";
};

/**
 * A threshold alert over server metrics: it fires for a server once the metric has stayed strictly above the threshold for forSeconds, resolves once it has been back at or below it on two evaluations in a row, and notifies its channels once on each.
 */
export interface AlertRule {
  /**
   * Always cairn.dev/v1.
   */
  apiVersion: "cairn.dev/v1";
  kind: "AlertRule";
  metadata: ObjectMeta;
  spec: AlertRuleSpec;
  /**
   * Written by cairn; ignored on input.
   */
  status?: {};
}

export interface AlertRuleSpec {
  /**
   * The server metric watched, a percentage: cpu_percent, memory_percent or disk_percent.
   */
  metric: "cpu_percent" | "memory_percent" | "disk_percent";
  /**
   * The rule fires when the metric is strictly above this percentage (0 to 100).
   */
  threshold: number;
  /**
   * How long the metric must stay above the threshold before the rule fires, in seconds (0: on the first evaluation above it).
   */
  forSeconds?: number;
  selector: AlertRuleSelector;
  /**
   * Where notifications go, once when an alert fires and once when it resolves (none: alerts are only recorded, as events and in /metrics): e-mail (needs CAIRN_SMTP_URL and CAIRN_MAIL_FROM) or a webhook in Slack, Discord or plain JSON form.
   *
   * @maxItems 10
   */
  channels?:
    | []
    | [AlertChannel]
    | [AlertChannel, AlertChannel]
    | [AlertChannel, AlertChannel, AlertChannel]
    | [AlertChannel, AlertChannel, AlertChannel, AlertChannel]
    | [AlertChannel, AlertChannel, AlertChannel, AlertChannel, AlertChannel]
    | [AlertChannel, AlertChannel, AlertChannel, AlertChannel, AlertChannel, AlertChannel]
    | [AlertChannel, AlertChannel, AlertChannel, AlertChannel, AlertChannel, AlertChannel, AlertChannel]
    | [AlertChannel, AlertChannel, AlertChannel, AlertChannel, AlertChannel, AlertChannel, AlertChannel, AlertChannel]
    | [
        AlertChannel,
        AlertChannel,
        AlertChannel,
        AlertChannel,
        AlertChannel,
        AlertChannel,
        AlertChannel,
        AlertChannel,
        AlertChannel
      ]
    | [
        AlertChannel,
        AlertChannel,
        AlertChannel,
        AlertChannel,
        AlertChannel,
        AlertChannel,
        AlertChannel,
        AlertChannel,
        AlertChannel,
        AlertChannel
      ];
}

/**
 * The servers of the same namespace the rule watches: those carrying every label of labels, and those named in servers (either or both).
 */
export interface AlertRuleSelector {
  /**
   * Servers whose labels include all of these.
   */
  labels?: {
    [k: string]: string;
  };
  /**
   * Names of Servers (same namespace) watched; a name no server has yet selects nothing until one does.
   *
   * @maxItems 200
   */
  servers?: string[];
}
