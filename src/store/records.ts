/**
 * @module Records of what users asked to happen to a resource, beyond its desired state:
 * backups of databases, deployments of apps, and one-off actions (reboot, restore, credential
 * rotation, start, stop). The API creates them; the reconciler carries them out and finishes them.
 */

export type BackupKind = 'manual' | 'scheduled' | 'final';
export type BackupStatus = 'pending' | 'running' | 'completed' | 'failed';

export interface BackupRecord {
  id: string;
  tenant: string;
  databaseUid: string;
  kind: BackupKind;
  status: BackupStatus;
  /** The vendor's id of the backup, once it exists there. */
  externalId: string | null;
  sizeBytes: number | null;
  /** `sha256:<hex>`. */
  checksum: string | null;
  /** Why it failed, when it did. */
  message: string | null;
  createdAt: string;
  completedAt: string | null;
}

/** What asked for a deployment. `api` and `webhook` are requests; `config` is the reconciler's. */
export type DeploymentTrigger = 'api' | 'config' | 'webhook';

export type DeploymentStatus = 'queued' | 'building' | 'deploying' | 'succeeded' | 'failed';

export interface DeploymentRecord {
  id: string;
  tenant: string;
  appUid: string;
  /** 1, 2, 3... per app. */
  version: number;
  status: DeploymentStatus;
  /** `api` for POST /apps/{id}/deploy, `webhook` for a push to the App's ref, `config` when the reconciler rolled out a changed spec. */
  trigger: DeploymentTrigger;
  ref: string | null;
  commit: string | null;
  message: string | null;
  /** The last lines of the build's output, when there was a build. */
  buildOutputTail: string | null;
  createdAt: string;
  /** When its rollout began (it became `deploying`). */
  startedAt: string | null;
  finishedAt: string | null;
}

export type ActionType = 'start' | 'stop' | 'reboot' | 'restore' | 'rotate_credentials';
export type ActionStatus = 'pending' | 'running' | 'succeeded' | 'failed';

export interface ActionRecord {
  id: string;
  tenant: string;
  /** The resource acted on. */
  uid: string;
  type: ActionType;
  /** restore: `{ backupId, rotateCredentials }`; the others: `{}`. */
  params: Record<string, unknown>;
  status: ActionStatus;
  message: string | null;
  createdAt: string;
  finishedAt: string | null;
}
