/**
 * @module The local directory source for development (`cairn serve --watch DIR`): the manifests
 * under DIR are applied as one revision (all or nothing, pruning what disappears, like a git
 * source), again after each burst of changes chokidar reports (debounced). Resources are owned
 * by `dir:<absolute path>`. A bad edit leaves the last good revision in force and says why.
 */
import { createHash } from 'node:crypto';
import { basename, relative, resolve } from 'node:path';
import { stat } from 'node:fs/promises';
import { watch, type FSWatcher } from 'chokidar';
import { expandManifestPaths, readManifestFile, type ManifestSource } from '../model/manifest-files.js';
import { formatManifestError } from '../model/manifest-error.js';
import { DEFAULT_MANIFEST_LIMITS } from '../model/manifest-limits.js';
import type { Store } from '../store/store.js';
import { applyRevision, type RevisionOutcome } from './revision-apply.js';

export interface DirectoryWatchOptions {
  tenant: string;
  /** Quiet time after the last change before applying. */
  debounceMs?: number;
  /** Called after a revision was written (the reconciler reads its feed). */
  afterWrite?: () => void;
  /** Told what each apply did, as lines for a person. */
  onReport?: (message: string) => void;
}

/** The owner of what a watched directory sets. */
function directoryOwner(dir: string): string {
  return `dir:${resolve(dir)}`;
}

function revisionOf(files: readonly ManifestSource[]): string {
  const hash = createHash('sha256');
  for (const f of files) hash.update(f.file).update('\0').update(f.text).update('\0');
  return `sha256:${hash.digest('hex').slice(0, 16)}`;
}

export class DirectoryWatch {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private applying: Promise<void> | undefined;
  private pending = false;
  private readonly root: string;

  constructor(private readonly store: Store, dir: string, private readonly options: DirectoryWatchOptions) {
    this.root = resolve(dir);
  }

  /**
   * Watches the directory, then applies it once: the watch is ready before the first read, so
   * a change made while cairn starts is either in that read or reported after it, never lost.
   */
  async start(): Promise<void> {
    const info = await stat(this.root).catch(() => undefined);
    if (!info?.isDirectory()) throw new Error(`--watch ${this.root}: no such directory`);
    const watcher = watch(this.root, {
      ignoreInitial: true,
      ignored: (path) => path !== this.root && (basename(path).startsWith('.') || basename(path) === 'node_modules'),
    });
    this.watcher = watcher;
    watcher.on('all', () => this.schedule());
    // A watch the system refuses (inotify limits) or loses must not go quiet: say so, and read the directory again.
    watcher.on('error', (error: unknown) => {
      this.report(`watching failed (${error instanceof Error ? error.message : String(error)}); reading the directory again now`);
      this.schedule();
    });
    await new Promise<void>((resolve) => {
      watcher.once('ready', () => resolve());
      watcher.once('error', () => resolve());
    });
    await this.applyNow();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.watcher?.close();
    await this.applying;
  }

  /** Reads and applies the directory now; the outcome is also reported. */
  async applyOnce(): Promise<RevisionOutcome> {
    const files = await this.read();
    if ('errors' in files) {
      this.report(`rejected, nothing applied; the last good revision stays in force:\n${files.errors.join('\n')}`);
      return { status: 'invalid', errors: files.errors };
    }
    const revision = revisionOf(files.sources);
    const outcome = applyRevision(this.store, { tenant: this.options.tenant, owner: directoryOwner(this.root), revision, files: files.sources, prune: true });
    if (outcome.status === 'applied') {
      const pruned = outcome.pruned.length > 0 ? `, pruned ${outcome.pruned.join(', ')}` : '';
      this.report(`revision ${revision} applied: ${outcome.resources} resources (${outcome.created} created, ${outcome.updated} updated${pruned})`);
      this.options.afterWrite?.();
    } else if (outcome.status !== 'stale') {
      this.report(`revision ${revision} rejected, nothing applied; the last good revision stays in force:\n${outcome.errors.join('\n')}`);
    }
    return outcome;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.applyNow(), this.options.debounceMs ?? 300);
  }

  private async applyNow(): Promise<void> {
    if (this.applying) {
      this.pending = true;
      return this.applying;
    }
    this.applying = this.applyOnce()
      .then(() => undefined)
      .catch((error: unknown) => this.report(`apply failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.applying = undefined;
        if (this.pending) {
          this.pending = false;
          void this.applyNow();
        }
      });
    return this.applying;
  }

  /** The manifest files, named relative to the directory; a directory with none is an empty revision. */
  private async read(): Promise<{ sources: ManifestSource[] } | { errors: string[] }> {
    const expanded = await expandManifestPaths([this.root]);
    const sources: ManifestSource[] = [];
    const errors = expanded.errors.filter((e) => !e.message.startsWith('no manifests here')).map(formatManifestError);
    for (const file of expanded.files) {
      const read = await readManifestFile(file, DEFAULT_MANIFEST_LIMITS.maxFileBytes);
      if ('text' in read) sources.push({ file: relative(this.root, file), text: read.text });
      else errors.push(formatManifestError({ ...read, file: relative(this.root, file) }));
    }
    return errors.length > 0 ? { errors } : { sources };
  }

  private report(message: string): void {
    this.options.onReport?.(`watch ${this.root}: ${message}`);
  }
}
