/**
 * @module Finding a tenant's resources for the API: by id (another tenant's id is simply not
 * found) and by name, with ids and names resolved once per request.
 */
import type { Kind } from '../../model/kinds.js';
import { NotFoundError, ValidationError } from '../../model/errors.js';
import { DEFAULT_NAMESPACE, type StoredResourceOf } from '../../model/resource.js';
import type { Store } from '../../store/store.js';

const NOUNS: Record<Kind, string> = { Provider: 'provider', SSHKey: 'SSH key', Server: 'server', Database: 'database', App: 'app', AlertRule: 'alert rule' };

export class ResourceLookup {
  private readonly idsByName = new Map<string, string | null>();

  constructor(readonly store: Store, readonly tenant: string) {}

  /** The tenant's resource of `kind` with this id; anything else (another tenant's, another kind's) is a 404. */
  byId<K extends Kind>(kind: K, id: string): StoredResourceOf<K> {
    const found = this.store.resources.get(id);
    if (!found || found.tenant !== this.tenant || found.kind !== kind) throw new NotFoundError(`no ${NOUNS[kind]} has id ${id}`);
    return found as StoredResourceOf<K>;
  }

  /** Like byId, for an id given in a request body: a missing one is a 422 on that field. */
  referenced<K extends Kind>(kind: K, id: string, pointer: string): StoredResourceOf<K> {
    try {
      return this.byId(kind, id);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      throw new ValidationError(`${pointer.slice(1)}: ${error.message}`, [{ pointer, message: error.message }]);
    }
  }

  /** The id of the resource named `name` in `namespace`, or null when there is none. */
  idOf(kind: Kind, name: string, namespace: string = DEFAULT_NAMESPACE): string | null {
    const key = `${kind}/${namespace}/${name}`;
    if (!this.idsByName.has(key)) {
      this.idsByName.set(key, this.store.resources.find(this.tenant, { kind, namespace, name })?.uid ?? null);
    }
    return this.idsByName.get(key) ?? null;
  }
}
