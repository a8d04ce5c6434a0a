/**
 * @module List+watch informers for cairn's kinds in a cluster (@kubernetes/client-node's
 * ListWatch): resourceVersion resume, bookmarks asked for, a relist on 410 Gone (ListWatch's own),
 * and a restart with exponential backoff (250 ms doubling to 30 s) after any other error. Every
 * `relistMs` each kind is also listed afresh and every object handed to the handlers again (as
 * controller-runtime's SyncPeriod), so nothing a watch missed stays missed, and anything whose
 * handling failed is tried again.
 */
import { ListWatch, Watch, type KubernetesObject } from '@kubernetes/client-node';
import { KINDS, type Kind } from '../../model/kinds.js';
import { GROUP, KIND_NAMES, VERSION } from '../../kubernetes/kind-names.js';
import type { Cluster } from './cluster.js';

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;
/** How often every kind is listed afresh by default. */
export const DEFAULT_RELIST_MS = 5 * 60_000;

type ListResult = { items: CustomResource[]; metadata?: { resourceVersion?: string } };

/** client-node's Watch, asking the server for BOOKMARK events. */
class BookmarkingWatch extends Watch {
  override watch(path: string, queryParams: Record<string, string | number | boolean | undefined>, callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void, done: (err: unknown) => void): Promise<AbortController> {
    return super.watch(path, { ...queryParams, allowWatchBookmarks: true }, callback, done);
  }
}

export interface CustomResource extends KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: NonNullable<KubernetesObject['metadata']>;
  spec?: unknown;
  status?: Record<string, unknown>;
}

export interface InformerHandlers {
  upsert(kind: Kind, object: CustomResource): void;
  remove(kind: Kind, object: CustomResource): void;
  error(kind: Kind, error: unknown, retryInMs: number): void;
}

export class CustomResourceInformers {
  private readonly informers = new Map<Kind, ListWatch<CustomResource>>();
  private readonly lists = new Map<Kind, () => Promise<ListResult>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private relistTimer: NodeJS.Timeout | undefined;
  private relisting: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly namespace: string | undefined,
    private readonly handlers: InformerHandlers,
    private readonly relistMs: number = DEFAULT_RELIST_MS,
  ) {}

  /** The cached object of a kind, by namespace and name. */
  get(kind: Kind, namespace: string, name: string): CustomResource | undefined {
    return this.informers.get(kind)?.get(name, namespace);
  }

  start(): void {
    this.stopped = false;
    for (const kind of KINDS) this.startKind(kind);
    this.relistTimer = setInterval(() => {
      this.relisting ??= this.relist().finally(() => {
        this.relisting = undefined;
      });
    }, this.relistMs);
  }

  /**
   * Lists every kind afresh: each object is handed to `upsert` again, and one the cache holds that
   * the list no longer has to `remove`. A failed list is reported like a watch error; the next
   * relist tries again.
   */
  async relist(): Promise<void> {
    for (const [kind, list] of this.lists) {
      if (this.stopped) return;
      let listed: ListResult;
      try {
        listed = await list();
      } catch (error) {
        this.handlers.error(kind, error, this.relistMs);
        continue;
      }
      const seen = new Set(listed.items.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`));
      for (const object of listed.items) this.handlers.upsert(kind, object);
      for (const cached of this.informers.get(kind)?.list() ?? []) {
        if (!seen.has(`${cached.metadata.namespace ?? ''}/${cached.metadata.name ?? ''}`)) this.handlers.remove(kind, cached);
      }
    }
  }

  private startKind(kind: Kind): void {
    const plural = KIND_NAMES[kind].plural;
    const path = this.namespace ? `/apis/${GROUP}/${VERSION}/namespaces/${this.namespace}/${plural}` : `/apis/${GROUP}/${VERSION}/${plural}`;
    const list = async (): Promise<ListResult> =>
      (this.namespace
        ? await this.cluster.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: this.namespace, plural })
        : await this.cluster.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural })) as ListResult;
    this.lists.set(kind, list);
    const informer = new ListWatch<CustomResource>(path, new BookmarkingWatch(this.cluster.kubeConfig), list, false);
    let backoff = FIRST_BACKOFF_MS;
    informer.on('add', (o) => {
      backoff = FIRST_BACKOFF_MS;
      this.handlers.upsert(kind, o);
    });
    informer.on('update', (o) => {
      backoff = FIRST_BACKOFF_MS;
      this.handlers.upsert(kind, o);
    });
    informer.on('delete', (o) => this.handlers.remove(kind, o));
    informer.on('error', (error: unknown) => {
      if (this.stopped) return;
      const wait = backoff;
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      this.handlers.error(kind, error, wait);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (!this.stopped) void informer.start();
      }, wait);
      this.timers.add(timer);
    });
    this.informers.set(kind, informer);
    void informer.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.relistTimer);
    await this.relisting;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.lists.clear();
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    this.informers.clear();
  }
}
