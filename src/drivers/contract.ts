/**
 * @module The driver contract: the only code that talks to a vendor implements these.
 * Like crossplane-runtime's ExternalClient, each managed thing has four idempotent verbs:
 * `observe` (changes nothing; finds the thing by its external id or, after a crash, by the
 * deterministic idempotency key), `create` (with that key as the vendor's client token, so a
 * repeat returns the first one), `update`, and `delete` (gone already counts as done).
 * Cloud drivers manage servers; runtimes manage databases and apps placed on a server.
 */
import type { ProviderSpec } from '../model/generated/kinds.js';
import type { SshAccess } from '../ssh/access.js';
import type { DataKeyWrapper } from '../secrets/sealed-stream.js';

/**
 * What every driver call may be given last: a signal that aborts it — its deadline passed, or
 * cairn is stopping. A driver passes it on to whatever it waits for (HTTP requests, child
 * processes, polls) and stops waiting when it fires; the caller has given up on the call by
 * then (src/reconcile/call-deadlines.ts), so what the driver does after is never seen.
 */
export interface CallOptions {
  signal?: AbortSignal;
}

/**
 * How many arguments each driver verb takes before its `CallOptions` (so a wrapper can put
 * them in place whatever the caller left out), and which deadline it gets: `observe` for
 * reads, `write` for changes, `long` for what runs long by nature (backups, restores; an app's
 * create and update, which build, are `long` too: see src/reconcile/call-deadlines.ts).
 */
export const DRIVER_VERBS: Readonly<Record<string, { arity: number; call: 'observe' | 'write' | 'long' }>> = {
  observe: { arity: 1, call: 'observe' },
  create: { arity: 2, call: 'write' },
  update: { arity: 2, call: 'write' },
  delete: { arity: 1, call: 'write' },
  power: { arity: 2, call: 'write' },
  regions: { arity: 0, call: 'observe' },
  sizes: { arity: 0, call: 'observe' },
  testCredentials: { arity: 0, call: 'observe' },
  metrics: { arity: 1, call: 'observe' },
  endpoint: { arity: 1, call: 'observe' },
  setPassword: { arity: 2, call: 'write' },
  createBackup: { arity: 2, call: 'long' },
  observeBackup: { arity: 1, call: 'observe' },
  deleteBackup: { arity: 1, call: 'write' },
  restore: { arity: 3, call: 'long' },
  logs: { arity: 2, call: 'observe' },
};

/** How to find a thing at the vendor: by its id once known, else by the idempotency key. */
export interface ExternalRef {
  key: string;
  externalId?: string | null;
}

export interface ExternalClient<Desired, Observed> {
  /** The thing as the vendor has it, or null when it does not exist. Must not change anything. */
  observe(ref: ExternalRef, options?: CallOptions): Promise<Observed | null>;
  /** Creates it with `key` as client token; calling again with the same key returns the first one. */
  create(key: string, desired: Desired, options?: CallOptions): Promise<Observed>;
  /** Brings an existing thing to `desired` in place (only fields that can change in place). */
  update(externalId: string, desired: Desired, options?: CallOptions): Promise<Observed>;
  /** Deletes it; deleting something already gone succeeds. */
  delete(externalId: string, options?: CallOptions): Promise<void>;
}

// ── servers ─────────────────────────────────────────────────────────────────────────────

export type VendorServerStatus =
  | 'provisioning' | 'running' | 'stopping' | 'stopped' | 'starting' | 'rebooting' | 'deleting' | 'error';

export interface ServerDesired {
  name: string;
  /** The vendor's region and size slugs; empty for a server of the `ssh` vendor, which has neither. */
  region: string;
  size: string;
  image: string;
  /**
   * The existing host a server of the `ssh` vendor adopts (spec.host, spec.port, spec.user);
   * set by the server reconciler for that vendor only.
   */
  ssh?: { host: string; port: number; user: string };
  /**
   * First-boot cloud-init user data, the server's SSH public keys already merged in
   * (src/drivers/kit/user-data.ts); sent at create only, in the vendor's field for it. Absent
   * or null: none.
   */
  userData?: string | null;
}

export interface ServerObserved {
  id: string;
  name: string;
  clientToken: string;
  region: string;
  size: string;
  image: string;
  status: VendorServerStatus;
  ipv4: string | null;
  ipv6: string | null;
  /** Why the vendor reports it in error (an `ssh` host cairn cannot reach, and why), when it says. */
  message?: string | null;
}

export type PowerAction = 'power_on' | 'power_off' | 'reboot';

export interface Region {
  slug: string;
  name: string;
  available: boolean;
}

export interface Size {
  slug: string;
  vcpus: number;
  memoryMb: number;
  diskGb: number;
  priceMonthly: number;
  regions: string[];
}

export interface CredentialTest {
  ok: boolean;
  message: string;
}

export interface ServerMetrics {
  /** Made up by a simulated vendor (the sandbox), not measured: shown as such to users. */
  simulated: boolean;
  cpuPercent: number;
  memoryPercent: number;
  diskPercent: number;
  sampledAt: string;
  series: Array<{ ts: string; cpuPercent: number; memoryPercent: number; diskPercent: number }>;
}

export interface CloudDriver {
  readonly vendor: string;
  readonly servers: ExternalClient<ServerDesired, ServerObserved>;
  power(externalId: string, action: PowerAction, options?: CallOptions): Promise<ServerObserved>;
  regions(options?: CallOptions): Promise<Region[]>;
  sizes(options?: CallOptions): Promise<Size[]>;
  testCredentials(options?: CallOptions): Promise<CredentialTest>;
  /** Why this vendor cannot report a server's CPU, memory and disk use, when it cannot: `metrics` then refuses (UnsupportedError). */
  readonly metricsUnsupported?: string;
  metrics(externalId: string, options?: CallOptions): Promise<ServerMetrics>;
  /** Releases sockets, timers and child services. */
  close(): Promise<void>;
}

// ── runtimes: databases and apps placed on a server ─────────────────────────────────────

/** The server a database or app is placed on, as its runtime needs to know it. */
export interface Placement {
  serverExternalId: string;
  serverAddress: string | null;
}

export type VendorDatabaseStatus = 'creating' | 'available' | 'backing_up' | 'restoring' | 'deleting' | 'error';

export interface DatabaseDesired {
  name: string;
  type: 'postgresql' | 'mongodb';
  version: string;
  storageGb: number | null;
  /** Where it runs: its server (empty for a managed database, which has none). */
  placement: Placement;
  /** A managed database's region and node size at its vendor; absent for one placed on a server. */
  managed?: { region: string; size: string };
  /**
   * The password cairn generated for the database's user (cairn keeps it encrypted; vendors
   * keep at most a hash). Used at create; changed later only through `setPassword`.
   */
  password: string;
}

/** Where to reach a database and as whom; the password is cairn's, never read back from a vendor. */
export interface DatabaseEndpoint {
  host: string;
  port: number;
  username: string;
  database: string;
  /** `host` is a DNS SRV name (a MongoDB Atlas cluster's): clients connect with `mongodb+srv://`. */
  srv?: boolean;
  /**
   * The password the vendor chose, for a vendor whose managed databases cannot take cairn's
   * (it generates its own): cairn keeps it encrypted in place of the one it generated. Absent
   * when the vendor uses cairn's.
   */
  vendorPassword?: string;
}

export type VendorBackupStatus = 'pending' | 'running' | 'completed' | 'failed';

export interface BackupObserved {
  id: string;
  clientToken: string;
  databaseId: string;
  status: VendorBackupStatus;
  sizeBytes: number | null;
  /** `sha256:<hex>` of the backup's content, once completed. */
  checksum: string | null;
  createdAt: string;
  completedAt: string | null;
  /** Why it failed, when it did. */
  message: string | null;
}

/** Databases, plus what only databases have: endpoints, passwords, backups and restores. */
export interface DatabaseRuntime extends ExternalClient<DatabaseDesired, DatabaseObserved> {
  endpoint(externalId: string, options?: CallOptions): Promise<DatabaseEndpoint>;
  /** Sets the database user's password; setting the same password again succeeds. */
  setPassword(externalId: string, password: string, options?: CallOptions): Promise<void>;
  /** Starts a backup with `key` as client token; the same key again returns the first backup. */
  createBackup(databaseExternalId: string, key: string, options?: CallOptions): Promise<BackupObserved>;
  /** The backup by its vendor id, or else by its key; null when it does not exist. Backups outlive their database. */
  observeBackup(ref: ExternalRef, options?: CallOptions): Promise<BackupObserved | null>;
  /** Deletes a backup (retention); deleting one already gone succeeds. */
  deleteBackup(backupExternalId: string, options?: CallOptions): Promise<void>;
  /**
   * Restores the backup into the database (status `restoring`, then `available`). The same key
   * again does not restore twice; it returns the database as it is.
   */
  restore(databaseExternalId: string, backupExternalId: string, key: string, options?: CallOptions): Promise<DatabaseObserved>;
  /**
   * Set where a final backup before a delete would be meaningless (the vendor deletes a
   * database's backups with it): why. The delete then waits for `cairn.dev/skip-final-backup`
   * instead of taking a backup that the delete itself would destroy.
   */
  readonly finalBackupUnavailable?: string;
}

export interface DatabaseObserved {
  id: string;
  name: string;
  clientToken: string;
  serverId: string;
  type: 'postgresql' | 'mongodb';
  version: string;
  storageGb: number | null;
  /** A managed database's node size at its vendor; absent for one placed on a server. */
  size?: string;
  status: VendorDatabaseStatus;
  host: string | null;
  port: number | null;
  engineVersion: string | null;
  /** Why the vendor reports it in error, when it says. */
  message?: string | null;
  /**
   * Set when the vendor knows the database's server process is not running although it should
   * (killed, host restarted): drift that `update` heals by starting it again.
   */
  down?: string;
  /**
   * Set when its creation stopped before it finished and nothing is finishing it (the local
   * runtime: the cairn process creating it was killed): `update` creates it again from the start.
   */
  interrupted?: string;
}

export type VendorAppStatus = 'deploying' | 'running' | 'stopping' | 'stopped' | 'failed' | 'deleting';

export interface AppDesired {
  name: string;
  placement: Placement;
  source: { git?: { url: string; ref: string; path: string }; image?: string; path?: string };
  build: string | null;
  command: string | null;
  port: number | null;
  /** The final environment, injected database URLs included. */
  env: Record<string, string>;
  healthCheckPath: string | null;
  state: 'running' | 'stopped';
}

export interface AppObserved {
  id: string;
  name: string;
  clientToken: string;
  serverId: string;
  status: VendorAppStatus;
  url: string | null;
  /** A fingerprint of the deployed configuration, so the reconciler can tell whether it is current. */
  releaseDigest: string | null;
  release: number;
  /**
   * The release that serves when it is not `release`: a newer one failed and this one kept
   * serving (still supervised). Null or absent when `release` is the one serving.
   */
  servingRelease?: number | null;
  /** The commit the serving release was built from (git sources), when the vendor knows it. */
  commit: string | null;
  /** Why the latest release failed (status `failed`), when the vendor says. */
  failure?: string;
}

export interface AppLogLine {
  ts: string;
  stream: 'stdout' | 'stderr' | 'system';
  line: string;
}

/** Apps, plus their logs. `update` always rolls out a new release, even with unchanged configuration. */
export interface AppRuntime extends ExternalClient<AppDesired, AppObserved> {
  /** The newest `tail` lines (default 100, at most 1000), optionally only those at or after `since`, oldest first. */
  logs(externalId: string, query: { tail?: number; since?: string }, options?: CallOptions): Promise<AppLogLine[]>;
}

export interface RuntimeDriver {
  readonly vendor: string;
  readonly databases: DatabaseRuntime;
  readonly apps: AppRuntime;
  close(): Promise<void>;
}

// ── how drivers are made ────────────────────────────────────────────────────────────────

/** A vendor's credential bundle, by field name (see `Vendor.credentialFields`). Never logged. */
export type VendorCredentials = Readonly<Record<string, string>>;

/** One field of a vendor's credential bundle, as `GET /providers/vendors` lists it. */
export interface CredentialField {
  name: string;
  description: string;
  required: boolean;
}

/** What a driver is built from: the Provider's spec and its resolved credentials. */
export interface DriverConfig {
  providerName: string;
  spec: ProviderSpec;
  /** The bundle resolved from `credentialsRef` (or stored through the API), if any. Never logged. */
  credentials: VendorCredentials | undefined;
  /** The data dir, for drivers that keep local state (the in-process sandbox, the local runtime). */
  dataDir: string;
  /**
   * The cap on one HTTP request towards the vendor (CAIRN_VENDOR_TIMEOUT_MS). A driver call may
   * make several requests; its deadline as a whole comes in its `CallOptions.signal`, and each
   * request ends at whichever comes first.
   */
  requestTimeoutMs: number;
  /** Wraps the data keys of files sealed at rest (the local runtime's backups) under the master key. */
  dataKeys: DataKeyWrapper;
  /**
   * How this Provider's tenant reaches servers over SSH (cairn's runtime key for the tenant, its
   * pinned host keys, the process's pooled connections): set by the driver pool; the SSH runtime
   * and the `ssh` vendor need it.
   */
  ssh?: SshAccess;
}

export interface Vendor {
  id: string;
  /** Shown to users; the sandbox says it is a simulation. */
  description: string;
  /** The credential bundle's fields; a `credentialsRef.env` variable fills the first one. */
  credentialFields: readonly CredentialField[];
  createCloudDriver(config: DriverConfig): Promise<CloudDriver>;
  createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver>;
  /**
   * The vendor's managed database service (Databases with `managed: true`), for a vendor that
   * has one; absent when it has none. `DatabaseDesired.managed` carries region and size.
   */
  createManagedDatabases?(config: DriverConfig): Promise<ManagedDatabaseDriver>;
  /** The engines its managed database service runs (with `createManagedDatabases`). */
  managedDatabaseEngines?: ReadonlyArray<DatabaseDesired['type']>;
  /**
   * Why this vendor has no servers, for a vendor that runs only managed databases (MongoDB
   * Atlas): its `createCloudDriver` refuses saying this, and its Providers' credentials are
   * tested through `createManagedDatabases` instead.
   */
  serversUnsupported?: string;
}

/** A vendor's managed database service. */
export interface ManagedDatabaseDriver {
  readonly vendor: string;
  readonly databases: DatabaseRuntime;
  /**
   * The vendor chooses its databases' passwords (it cannot take cairn's): `endpoint()` returns
   * the one it chose as `vendorPassword`, which cairn reads back on every pass. Vendors that take
   * cairn's password leave this out, and are not asked.
   */
  readonly choosesPasswords?: boolean;
  /** The cheapest authenticated read, saying plainly what is wrong; a vendor with `serversUnsupported` must have it (its Providers are tested here). */
  testCredentials?(options?: CallOptions): Promise<CredentialTest>;
  close(): Promise<void>;
}
