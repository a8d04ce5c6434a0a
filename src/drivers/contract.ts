/**
 * @module The driver contract: the only code that talks to a vendor implements these.
 * Like crossplane-runtime's ExternalClient, each managed thing has four idempotent verbs:
 * `observe` (changes nothing; finds the thing by its external id or, after a crash, by the
 * deterministic idempotency key), `create` (with that key as the vendor's client token, so a
 * repeat returns the first one), `update`, and `delete` (gone already counts as done).
 * Cloud drivers manage servers; runtimes manage databases and apps placed on a server.
 */
import type { ProviderSpec } from '../model/generated/kinds.js';

/** How to find a thing at the vendor: by its id once known, else by the idempotency key. */
export interface ExternalRef {
  key: string;
  externalId?: string | null;
}

export interface ExternalClient<Desired, Observed> {
  /** The thing as the vendor has it, or null when it does not exist. Must not change anything. */
  observe(ref: ExternalRef): Promise<Observed | null>;
  /** Creates it with `key` as client token; calling again with the same key returns the first one. */
  create(key: string, desired: Desired): Promise<Observed>;
  /** Brings an existing thing to `desired` in place (only fields that can change in place). */
  update(externalId: string, desired: Desired): Promise<Observed>;
  /** Deletes it; deleting something already gone succeeds. */
  delete(externalId: string): Promise<void>;
}

// ── servers ─────────────────────────────────────────────────────────────────────────────

export type VendorServerStatus =
  | 'provisioning' | 'running' | 'stopping' | 'stopped' | 'starting' | 'rebooting' | 'deleting' | 'error';

export interface ServerDesired {
  name: string;
  region: string;
  size: string;
  image: string;
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
  cpuPercent: number;
  memoryPercent: number;
  diskPercent: number;
  sampledAt: string;
  series: Array<{ ts: string; cpuPercent: number; memoryPercent: number; diskPercent: number }>;
}

export interface CloudDriver {
  readonly vendor: string;
  readonly servers: ExternalClient<ServerDesired, ServerObserved>;
  power(externalId: string, action: PowerAction): Promise<ServerObserved>;
  regions(): Promise<Region[]>;
  sizes(): Promise<Size[]>;
  testCredentials(): Promise<CredentialTest>;
  metrics(externalId: string): Promise<ServerMetrics>;
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
  placement: Placement;
}

export interface DatabaseConnection {
  host: string;
  port: number;
  username: string;
  password: string;
  database: string;
  /** postgresql://user:pass@host:port/name or mongodb://... */
  uri: string;
}

export interface DatabaseObserved {
  id: string;
  name: string;
  clientToken: string;
  serverId: string;
  type: 'postgresql' | 'mongodb';
  version: string;
  storageGb: number | null;
  status: VendorDatabaseStatus;
  host: string | null;
  port: number | null;
  engineVersion: string | null;
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
}

export interface RuntimeDriver {
  readonly vendor: string;
  readonly databases: ExternalClient<DatabaseDesired, DatabaseObserved> & {
    connection(externalId: string): Promise<DatabaseConnection>;
  };
  readonly apps: ExternalClient<AppDesired, AppObserved>;
  close(): Promise<void>;
}

// ── how drivers are made ────────────────────────────────────────────────────────────────

/** What a driver is built from: the Provider's spec and its resolved credentials. */
export interface DriverConfig {
  providerName: string;
  spec: ProviderSpec;
  /** The token resolved from `credentialsRef`, if any. Never logged. */
  credentials: string | undefined;
  /** The data dir, for drivers that keep local state (the in-process sandbox, the local runtime). */
  dataDir: string;
  /** Per-request timeout towards the vendor. */
  requestTimeoutMs: number;
}

export interface Vendor {
  id: string;
  /** Shown to users; the sandbox says it is a simulation. */
  description: string;
  createCloudDriver(config: DriverConfig): Promise<CloudDriver>;
  createRuntimeDriver(config: DriverConfig): Promise<RuntimeDriver>;
}
