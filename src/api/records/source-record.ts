/**
 * @module The one codec between git sources in the store and their REST records (snake_case):
 * what POST and PATCH bodies mean, and what a source record shows — never its credentials or
 * webhook secret, which are shown only once, at creation.
 */
import type { GitSource, GitSourceChanges, NewGitSource, SourceCredentials } from '../../store/sources.js';
import { gitOwner } from '../../store/sources.js';
import type { Store } from '../../store/store.js';
import { checkGitUrl, normaliseRepoPath } from '../../sources/git-url.js';
import { conditionRecord, type ConditionRecord } from './common.js';

const DEFAULT_INTERVAL_SECONDS = 60;
const DEFAULT_REF = 'main';

export interface SourceCreateBody {
  name: string;
  url: string;
  ref?: string;
  path?: string;
  interval_seconds?: number;
  prune?: boolean;
  suspended?: boolean;
  auth?: { type: 'token'; token: string } | { type: 'basic'; username: string; password: string };
}

export interface SourceUpdateBody {
  ref?: string;
  path?: string;
  interval_seconds?: number;
  prune?: boolean;
  suspended?: boolean;
}

export interface SourceRecord {
  id: string;
  name: string;
  url: string;
  ref: string;
  path: string;
  interval_seconds: number;
  prune: boolean;
  suspended: boolean;
  auth: { type: 'token' | 'basic'; username: string | null } | null;
  status: 'pending' | 'ready' | 'failed' | 'suspended';
  revision: string | null;
  attempted_revision: string | null;
  last_synced_at: string | null;
  conditions: ConditionRecord[];
  errors: string[];
  orphans: string[];
  conflicts: Array<{ kind: string; namespace: string; name: string; owner: string; declared_by: string }>;
  webhook_path: string;
  created_at: string;
  updated_at: string;
}

export function newSourceFromBody(body: SourceCreateBody): NewGitSource {
  const credentials: SourceCredentials | undefined = body.auth;
  return {
    name: body.name,
    url: checkGitUrl(body.url),
    ref: body.ref ?? DEFAULT_REF,
    path: normaliseRepoPath(body.path ?? '.'),
    intervalSeconds: body.interval_seconds ?? DEFAULT_INTERVAL_SECONDS,
    prune: body.prune ?? true,
    suspended: body.suspended ?? false,
    ...(credentials ? { credentials } : {}),
  };
}

export function sourceChangesFromBody(body: SourceUpdateBody): GitSourceChanges {
  return {
    ...(body.ref !== undefined ? { ref: body.ref } : {}),
    ...(body.path !== undefined ? { path: normaliseRepoPath(body.path) } : {}),
    ...(body.interval_seconds !== undefined ? { intervalSeconds: body.interval_seconds } : {}),
    ...(body.prune !== undefined ? { prune: body.prune } : {}),
    ...(body.suspended !== undefined ? { suspended: body.suspended } : {}),
  };
}

function statusOf(source: GitSource): SourceRecord['status'] {
  if (source.suspended) return 'suspended';
  const ready = source.conditions.find((c) => c.type === 'Ready');
  if (!ready) return 'pending';
  return ready.status === 'True' ? 'ready' : 'failed';
}

export function sourceRecord(source: GitSource, store: Store): SourceRecord {
  const conflicts = [...source.conflicts, ...store.sources.conflictsAgainst(gitOwner(source.id))];
  return {
    id: source.id,
    name: source.name,
    url: source.url,
    ref: source.ref,
    path: source.path === '' ? '.' : source.path,
    interval_seconds: source.intervalSeconds,
    prune: source.prune,
    suspended: source.suspended,
    auth: source.auth,
    status: statusOf(source),
    revision: source.revision,
    attempted_revision: source.attemptedRevision,
    last_synced_at: source.lastSyncedAt,
    conditions: source.conditions.map(conditionRecord),
    errors: source.errors,
    orphans: source.orphans,
    conflicts: conflicts.map((c) => ({ kind: c.kind, namespace: c.namespace, name: c.name, owner: c.owner, declared_by: c.claimant })),
    webhook_path: `/api/v1/sources/${source.id}/webhook`,
    created_at: source.createdAt,
    updated_at: source.updatedAt,
  };
}
