/**
 * @module Rendered list pages kept per store revision: every write to resources or their
 * status moves the revision, so a page is served from here only while nothing it shows can
 * have changed (the idea of the Kubernetes API server's watch cache). Bounded in entries.
 */
const MAX_ENTRIES = 2_000;

export class ListCache {
  private readonly pages = new Map<string, { revision: number; body: string }>();

  /** The page's JSON text at `revision`, rendered by `render` when not already kept. */
  page(key: string, revision: number, render: () => unknown): string {
    const kept = this.pages.get(key);
    if (kept && kept.revision === revision) return kept.body;
    const body = JSON.stringify(render());
    if (this.pages.size >= MAX_ENTRIES && !kept) this.pages.delete(this.pages.keys().next().value as string);
    this.pages.set(key, { revision, body });
    return body;
  }
}

/** The key of a list page: who may see it and which page it is. */
export function listKey(tenant: string, kind: string, request: { limit: number; cursor?: string | undefined }): string {
  return `${tenant}\u0000${kind}\u0000${request.limit}\u0000${request.cursor ?? ''}`;
}
