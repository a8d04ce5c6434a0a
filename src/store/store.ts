/**
 * @module The store: cairn's state in one SQLite file per data dir. All SQL lives in this
 * folder; the rest of cairn sees only these narrow interfaces (kept narrow so a PostgreSQL
 * store can stand in for it later).
 */
import type { SqlConnection } from './connection.js';
import { loadKeyring, type LoadedKeyring } from '../secrets/keyring.js';
import { SealedFileDirectory, sealedBackupsDir } from '../secrets/sealed-files.js';
import { Actions } from './actions.js';
import { Alerts } from './alerts.js';
import { Backups, type WakeResource } from './backups.js';
import { CommitGroup } from './commit-group.js';
import { DashboardPreferences } from './dashboard-preferences.js';
import { AppWebhookSecrets } from './app-webhook-secrets.js';
import { Deployments } from './deployments.js';
import { ApiTokens } from './api-tokens.js';
import { AppliedConfigurations } from './applied-configurations.js';
import { AuditLog } from './audit-log.js';
import { BillingAccounts } from './billing-accounts.js';
import { billingEnabled } from '../billing/billing-settings.js';
import { loadPlans, type Plan, type PlanId } from '../billing/plans.js';
import { quotaCheckFor } from '../billing/quota.js';
import { EventLog } from './events.js';
import { EventWebhooks } from './event-webhooks.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { Identities } from './identities.js';
import { Leases } from './lease.js';
import { ManifestCache } from './manifest-cache.js';
import { rotateMasterKey, type MasterKeyRotation, type RotationOptions } from './master-key-rotation.js';
import { PendingOperations } from './operations.js';
import { PlatformMigrations } from './platform-migrations.js';
import { ResourceHistory } from './resource-history.js';
import { Resources } from './resources.js';
import { EncryptedSecrets } from './secrets.js';
import { AuthSessions } from './sessions.js';
import { GitSources } from './sources.js';
import { ShardLeases } from './shard-leases.js';
import { SigningKeys } from './signing-keys.js';
import { SshHostKeys } from './ssh-host-keys.js';
import { durabilitySettings, type DurabilitySettings } from './sqlite.js';
import { openStateDatabase, type StoreEngine } from './open-connection.js';
import { Tenants } from './tenants.js';
import { Users } from './users.js';

export interface StoreOptions {
  /** Where CAIRN_MASTER_KEY is read from (default process.env), on first use of a secret. */
  env?: NodeJS.ProcessEnv;
  /** How many tombstones of removed resources are kept for resuming watches (default TOMBSTONES_KEPT). */
  tombstonesKept?: number;
  /** Where the state lives: 'sqlite' (in the data dir) or a postgres:// URL. Default: CAIRN_STORE of `env`. */
  store?: string;
}

export class Store {
  readonly resources: Resources;
  /** Name-ordered pages and changes since a revision, for Kubernetes-style lists and watches. */
  readonly history: ResourceHistory;
  /** What each field manager last applied server-side, per resource. */
  readonly appliedConfigurations: AppliedConfigurations;
  readonly events: EventLog;
  readonly operations: PendingOperations;
  readonly leases: Leases;
  /** Leases on shards of the uid space, for replicas that share reconciling one store. */
  readonly shardLeases: ShardLeases;
  readonly idempotencyKeys: IdempotencyKeys;
  /** Backups of databases (manual, scheduled, final). */
  readonly backups: Backups;
  /** Deployments of apps, one per rollout. */
  readonly deployments: Deployments;
  /** One-off actions on resources (reboot, start, stop, restore, credential rotation). */
  readonly actions: Actions;
  /** Secrets at rest, encrypted under the data dir's master key (loaded on first use). */
  readonly secrets: EncryptedSecrets;
  /** The secrets of Apps' push webhooks (deploy on push). */
  readonly appWebhookSecrets: AppWebhookSecrets;
  readonly tenants: Tenants;
  /** Users and their memberships of tenants. */
  readonly users: Users;
  /** Sign-in sessions and their refresh tokens. */
  readonly sessions: AuthSessions;
  readonly apiTokens: ApiTokens;
  readonly signingKeys: SigningKeys;
  readonly auditLog: AuditLog;
  /** Git sources: where manifests come from and what their last sync found. */
  readonly sources: GitSources;
  /** The parsed manifests of YAML texts read before, so that unchanged files are not parsed again. */
  readonly manifestCache: ManifestCache;
  /** SSH host keys pinned on first contact, per tenant and `host:port`. */
  readonly sshHostKeys: SshHostKeys;
  /** Identities at GitHub, Google and GitLab linked to users; started sign-ins and one-time codes. */
  readonly identities: Identities;
  /** Each tenant's Stripe customer and subscription, and the webhook events already applied. */
  readonly billing: BillingAccounts;
  /** Alerts of AlertRules, their evaluation state and their notifications' outbox. */
  readonly alerts: Alerts;
  /** Moves from hosting platforms (Heroku, Railway) and their steps. */
  readonly platformMigrations: PlatformMigrations;
  /** Outbound event webhooks, their delivery outbox and the dispatcher's cursor over `events`. */
  readonly eventWebhooks: EventWebhooks;
  /** The dashboard's widget settings per signed-in subject. */
  readonly dashboardPreferences: DashboardPreferences;
  /**
   * Groups the reconcile loop's writes into one commit every few milliseconds; what must be
   * durable before cairn acts on it waits for `commits.committed()` (see commit-group.ts).
   */
  readonly commits: CommitGroup;

  private constructor(
    private readonly db: SqlConnection,
    /** The engine the state lives on: SQLite in the data dir, or a PostgreSQL database several processes share. */
    readonly engine: StoreEngine,
    readonly dataDir: string,
    private readonly env: NodeJS.ProcessEnv,
    tombstonesKept?: number,
  ) {
    this.resources = new Resources(db, tombstonesKept);
    this.history = new ResourceHistory(db);
    this.appliedConfigurations = new AppliedConfigurations(db);
    this.events = new EventLog(db);
    this.operations = new PendingOperations(db);
    this.leases = new Leases(db);
    this.shardLeases = new ShardLeases(db);
    this.idempotencyKeys = new IdempotencyKeys(db);
    const wake: WakeResource = (uid, tenant, kind) => this.resources.touch(uid, { tenant, kind });
    this.backups = new Backups(db, wake);
    this.deployments = new Deployments(db, wake);
    this.actions = new Actions(db, wake);
    this.secrets = new EncryptedSecrets(db, () => this.loadKeyring());
    this.appWebhookSecrets = new AppWebhookSecrets(this.secrets);
    this.tenants = new Tenants(db);
    this.users = new Users(db);
    this.sessions = new AuthSessions(db);
    this.apiTokens = new ApiTokens(db);
    this.signingKeys = new SigningKeys(db, this.secrets);
    this.auditLog = new AuditLog(db);
    this.sources = new GitSources(db, this.secrets);
    this.manifestCache = new ManifestCache(db);
    this.sshHostKeys = new SshHostKeys(db);
    this.identities = new Identities(db);
    this.billing = new BillingAccounts(db);
    this.alerts = new Alerts(db);
    this.platformMigrations = new PlatformMigrations(db);
    this.eventWebhooks = new EventWebhooks(db);
    this.dashboardPreferences = new DashboardPreferences(db);
    // Billing on: every write that adds a Server, Database or App is checked against the
    // tenant's plan, whichever process opened the store (serve, cairn apply, a sync).
    if (billingEnabled(env)) {
      let plans: Record<PlanId, Plan> | undefined;
      this.resources.enforceQuotas(quotaCheckFor(() => (plans ??= loadPlans(dataDir)), this.billing));
    }
    this.commits = new CommitGroup(db);
  }

  static open(dataDir: string, options: StoreOptions = {}): Store {
    const env = options.env ?? process.env;
    const { connection, engine } = openStateDatabase(dataDir, options.store ?? env.CAIRN_STORE);
    return new Store(connection, engine, dataDir, env, options.tombstonesKept);
  }

  /** Re-encrypts every secret, and re-wraps every sealed backup's data key, under a new master key (`cairn keys rotate`). */
  rotateMasterKey(options: RotationOptions = {}): MasterKeyRotation {
    return rotateMasterKey(this.db, this.secrets, () => this.loadKeyring(), new SealedFileDirectory(sealedBackupsDir(this.dataDir)), options);
  }

  private loadKeyring(): LoadedKeyring {
    // A new key could open neither the secrets nor the sealed backups of an earlier one.
    const mayGenerate = (): boolean => this.secrets.count() === 0 && new SealedFileDirectory(sealedBackupsDir(this.dataDir)).keyIdsInUse().size === 0;
    return loadKeyring(this.dataDir, this.env, { mayGenerate });
  }

  /** Runs `work` in one write transaction: everything it writes lands together or not at all. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  /** Names the open outermost transaction (see SqlConnection.transactionSerial); undefined when none or not told. */
  get transactionSerial(): number | undefined {
    return this.db.transactionSerial;
  }

  /** The schema version the store's database is at (another cairn sharing it may have migrated it past ours). */
  schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  /** Grows at every write this store makes to its leases (shard leases and named ones). */
  get leaseChanges(): number {
    return this.shardLeases.changes + this.leases.changes;
  }

  /** The journal mode and fsync level the store's connection runs with, as SQLite reports them. */
  durability(): DurabilitySettings {
    return durabilitySettings(this.db);
  }

  /** True when the state file answers a write (for readiness checks). */
  isWritable(): boolean {
    try {
      this.db.prepare(`UPDATE meta SET value = value WHERE key = 'revision'`).run();
      return true;
    } catch {
      return false;
    }
  }

  /** Commits an open commit group, then closes the state file. */
  close(): void {
    if (!this.db.open) return;
    this.commits.commitNow();
    this.db.close();
  }
}
