/**
 * @module One sync of a git source: fetch its ref, read the manifests under its path at that
 * commit, apply them as one revision (all or nothing; see revision-apply), and record on the
 * source what happened — the commit in force, or every error of the rejected one while the last
 * good revision stays in force. A commit already dealt with under the same settings is not
 * applied again.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { displayName } from '../model/resource.js';
import { gitOwner, type GitSource, type SyncRecord } from '../store/sources.js';
import type { Store } from '../store/store.js';
import { FetchError, GitRepository } from './git-repository.js';
import { applyRevision, type RevisionOutcome } from './revision-apply.js';
import {
  readyCondition, REASON_APPLIED, REASON_FETCH_FAILED, REASON_OWNERSHIP_CONFLICT, REASON_QUOTA_EXCEEDED, REASON_SUSPENDED, REASON_VALIDATION_FAILED,
} from './source-condition.js';

export interface SyncReport {
  sourceId: string;
  result: 'applied' | 'unchanged' | 'rejected' | 'failed' | 'suspended' | 'gone';
  revision?: string;
  message: string;
}

/** What a revision came to once it was looked at under its source's current settings. */
type SettledOutcome = Exclude<RevisionOutcome, { status: 'stale' }>;

function short(commit: string | null): string {
  return commit === null ? 'none' : commit.slice(0, 12);
}

function describeApplied(commit: string, outcome: Extract<RevisionOutcome, { status: 'applied' }>): string {
  const parts = [`${outcome.created} created`, `${outcome.updated} updated`, `${outcome.unchanged} unchanged`];
  if (outcome.pruned.length > 0) parts.push(`${outcome.pruned.length} pruned (${outcome.pruned.join(', ')})`);
  if (outcome.orphans.length > 0) parts.push(`${outcome.orphans.length} orphaned, prune is off (${outcome.orphans.join(', ')})`);
  return `revision ${short(commit)} applied: ${outcome.resources} resource${outcome.resources === 1 ? '' : 's'}; ${parts.join(', ')}`;
}

export class SourceSyncer {
  private readonly repositories = new Map<string, GitRepository>();
  /** Per source, the commit and settings last dealt with (applied or rejected). */
  private readonly settled = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly dataDir: string,
    private readonly afterWrite: () => void = () => undefined,
  ) {}

  async sync(id: string): Promise<SyncReport> {
    const source = this.store.sources.get(id);
    if (!source) {
      await this.forget(id);
      return { sourceId: id, result: 'gone', message: 'the source was deleted' };
    }
    if (source.suspended) {
      const message = `suspended; revision ${short(source.revision)} stays in force and nothing is applied until it is resumed`;
      this.record(source, { attemptedRevision: source.attemptedRevision, conditions: readyCondition(source.conditions, 'False', REASON_SUSPENDED, message), errors: source.errors, orphans: source.orphans, conflicts: source.conflicts });
      return { sourceId: id, result: 'suspended', message };
    }
    let commit: string;
    let outcome: SettledOutcome;
    try {
      const repository = this.repository(source.id);
      commit = await repository.fetch(source.url, source.ref, this.store.sources.credentials(source));
      const key = `${commit}|${source.path}|${source.prune}`;
      if (this.settled.get(id) === key) {
        this.record(source, { attemptedRevision: commit, ...(commit === source.revision ? { revision: commit } : {}), conditions: source.conditions, errors: source.errors, orphans: source.orphans, conflicts: source.conflicts });
        return { sourceId: id, result: 'unchanged', revision: commit, message: `revision ${short(commit)} already dealt with` };
      }
      const files = await repository.manifestFiles(commit, source.path);
      const applied = applyRevision(this.store, {
        tenant: source.tenant, owner: gitOwner(source.id), revision: commit, files, prune: source.prune,
        staleBecause: () => this.staleBecause(source),
      });
      if (applied.status === 'stale') return { sourceId: id, result: 'gone', message: `revision ${short(commit)} not applied: ${applied.reason}` };
      outcome = applied;
      // A conflict or a quota may clear without a new commit (the other owner lets go, the plan
      // changes): try it again next time.
      if (outcome.status !== 'conflict' && outcome.status !== 'over_quota') this.settled.set(id, key);
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      const message = `${error.message}; revision ${short(source.revision)} stays in force`;
      this.record(source, { attemptedRevision: source.attemptedRevision, conditions: readyCondition(source.conditions, 'False', REASON_FETCH_FAILED, message), errors: [error.message], orphans: source.orphans, conflicts: source.conflicts });
      return { sourceId: id, result: 'failed', message };
    }
    return this.recordOutcome(source, commit, outcome);
  }

  /** Why a revision fetched for `source` may no longer be written: the source went, was suspended or now points elsewhere. */
  private staleBecause(source: GitSource): string | undefined {
    const now = this.store.sources.get(source.id);
    if (!now) return 'the source was deleted meanwhile';
    if (now.suspended) return 'the source was suspended meanwhile';
    if (now.url !== source.url || now.ref !== source.ref || now.path !== source.path || now.prune !== source.prune) return 'the source was changed meanwhile; it syncs again';
    return undefined;
  }

  /** Forgets a deleted source: what was dealt with, and its repository cache on disk. */
  async forget(id: string): Promise<void> {
    this.settled.delete(id);
    this.repositories.delete(id);
    await rm(this.cacheDir(id), { recursive: true, force: true });
  }

  private cacheDir(id: string): string {
    return join(this.dataDir, 'sources', id);
  }

  private recordOutcome(source: GitSource, commit: string, outcome: SettledOutcome): SyncReport {
    if (outcome.status === 'applied') {
      const message = describeApplied(commit, outcome);
      this.record(source, { attemptedRevision: commit, revision: commit, conditions: readyCondition(source.conditions, 'True', REASON_APPLIED, message), errors: [], orphans: outcome.orphans, conflicts: [] });
      this.afterWrite();
      return { sourceId: source.id, result: 'applied', revision: commit, message };
    }
    const count = `${outcome.errors.length} error${outcome.errors.length === 1 ? '' : 's'}`;
    const kept = `revision ${short(source.revision)} stays in force`;
    const reason = outcome.status === 'invalid' ? REASON_VALIDATION_FAILED : outcome.status === 'over_quota' ? REASON_QUOTA_EXCEEDED : REASON_OWNERSHIP_CONFLICT;
    const message = `revision ${short(commit)} rejected, nothing applied (${count}); ${kept}:\n${outcome.errors.join('\n')}`;
    const conflicts = outcome.status === 'conflict' ? outcome.conflicts : [];
    this.record(source, { attemptedRevision: commit, conditions: readyCondition(source.conditions, 'False', reason, message), errors: outcome.errors, orphans: source.orphans, conflicts });
    for (const conflict of conflicts) this.reportConflictOnResource(source, conflict.kind, conflict.namespace, conflict.name);
    return { sourceId: source.id, result: 'rejected', revision: commit, message };
  }

  /** The other half of a conflict: an event on the resource, which its owner sees. */
  private reportConflictOnResource(source: GitSource, kind: string, namespace: string, name: string): void {
    const resource = this.store.resources.find(source.tenant, { kind: kind as 'Server', namespace, name });
    if (!resource) return;
    this.store.events.append({
      tenant: resource.tenant, uid: resource.uid, kind: resource.kind, namespace: resource.namespace, name: resource.name, type: 'Warning', reason: REASON_OWNERSHIP_CONFLICT,
      message: `git source ${source.name} (${gitOwner(source.id)}) also declares ${displayName(resource)}; it stays with its owner ${resource.source}`,
    });
  }

  private record(source: GitSource, record: SyncRecord): void {
    this.store.sources.recordSync(source.id, record);
  }

  private repository(id: string): GitRepository {
    let repository = this.repositories.get(id);
    if (!repository) {
      repository = new GitRepository(this.cacheDir(id));
      this.repositories.set(id, repository);
    }
    return repository;
  }
}
