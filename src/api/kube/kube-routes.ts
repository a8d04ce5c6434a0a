/**
 * @module cairn's kinds under Kubernetes' resource paths
 * (`/apis/cairn.dev/v1[/namespaces/{ns}]/{plural}[/{name}[/status]]`): list (Table or
 * objects, label and field selectors, limit/continue), watch, get, create, update (PUT with
 * resourceVersion: stale → 409), patch (merge, JSON, strategic-as-merge, server-side apply with
 * field ownership per manager and conflicts),
 * delete (the finalizer keeps the object until the vendor's side is gone), dryRun=All.
 * Writes are desired state owned by source `api`, the same resources the REST API and
 * `POST /manifests` write; tenants and roles are the REST API's.
 */
import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { AlreadyExistsError, ConflictError, ForbiddenError, MalformedRequestError, NotFoundError, ValidationError } from '../../model/errors.js';
import type { Kind } from '../../model/kinds.js';
import type { AnyManifest, AnyStoredResource } from '../../model/resource.js';
import { decodeCursor, encodeCursor } from '../../store/paging.js';
import { GROUP, GROUP_VERSION, KIND_NAMES, kindOfPlural } from '../../kubernetes/kind-names.js';
import { allowed } from '../authentication.js';
import { checkHostAccess } from '../host-access-check.js';
import type { ApiDeps } from '../deps.js';
import { asKubeObject, resourceVersionOf, toKubeObject, toManifest, type KubeObject } from '../../kubernetes/kube-object.js';
import { applyPatch, appliedConfiguration, patchTypeOf } from './kube-patch.js';
import { serverSideApply } from './server-side-apply.js';
import { parseFieldSelector, parseLabelSelector } from './kube-selectors.js';
import type { StatusSubject } from './kube-status.js';
import { includeObjectOf, toTable, wantsTable } from './kube-table.js';
import { serveWatch, type WatchTiming } from './kube-watch.js';

/** The owner of what is written through this endpoint: the same as the REST API's writes. */
const SOURCE = 'api';
const BASE = `/apis/${GROUP_VERSION}`;

function query(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new MalformedRequestError(`query parameter ${name} may be given once`);
  return value;
}

function kindOf(req: Request, res: Response): Kind {
  const plural = String(req.params.plural);
  const kind = kindOfPlural(plural);
  if (!kind) throw new NotFoundError(`the server could not find the requested resource (${plural} is not a resource of ${GROUP_VERSION})`);
  const bodyName = (req.body as { metadata?: { name?: unknown } } | undefined)?.metadata?.name;
  const name = req.params.name ? String(req.params.name) : typeof bodyName === 'string' ? bodyName : undefined;
  res.locals.kubeSubject = { group: GROUP, kind, ...(name !== undefined ? { name } : {}) } satisfies StatusSubject;
  return kind;
}

function notFound(kind: Kind, name: string): NotFoundError {
  return new NotFoundError(`${KIND_NAMES[kind].plural}.${GROUP} "${name}" not found`);
}

function isDryRun(req: Request): boolean {
  const value = query(req, 'dryRun');
  if (value === undefined) return false;
  if (value !== 'All') throw new MalformedRequestError(`dryRun must be All, got "${value}"`);
  return true;
}

function nonNegativeInteger(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text === '') return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new MalformedRequestError(`${name} must be a non-negative integer, got "${text}"`);
  return n;
}

/** The manifest of an object written at `namespace`/`name` on the URL; another name in the object is refused. */
function manifestAt(object: unknown, kind: Kind, namespace: string, name: string): AnyManifest {
  const manifest = toManifest(asKubeObject(object, kind), kind, namespace);
  if (manifest.metadata.name !== name) {
    throw new MalformedRequestError(`the name of the object (${manifest.metadata.name}) does not match the name on the URL (${name})`);
  }
  return manifest;
}

/** What a write would store, without storing it (dryRun=All). */
function preview(manifest: AnyManifest, current: AnyStoredResource | undefined, tenant: string): AnyStoredResource {
  const now = new Date().toISOString();
  const specChanged = current !== undefined && JSON.stringify(current.spec) !== JSON.stringify(manifest.spec);
  return {
    uid: current?.uid ?? randomUUID(), tenant, kind: manifest.kind, namespace: manifest.metadata.namespace ?? 'default', name: manifest.metadata.name,
    labels: manifest.metadata.labels ?? {}, annotations: manifest.metadata.annotations ?? {}, spec: manifest.spec,
    generation: current ? current.generation + (specChanged ? 1 : 0) : 1,
    resourceVersion: current?.resourceVersion ?? 0, specVersion: current?.specVersion ?? 0, statusVersion: current?.statusVersion ?? 0, source: current?.source ?? SOURCE,
    createdAt: current?.createdAt ?? now, updatedAt: now, deletionTimestamp: current?.deletionTimestamp ?? null,
    status: current?.status ?? { phase: manifest.kind === 'Provider' ? 'untested' : 'pending', conditions: [], observedGeneration: 0 },
  } as AnyStoredResource;
}

export function kubeResourceRoutes(deps: ApiDeps, timing: WatchTiming): Router {
  const router = Router();
  const { store } = deps;

  const find = (tenant: string, kind: Kind, namespace: string, name: string): AnyStoredResource => {
    const found = store.resources.find(tenant, { kind, namespace, name });
    if (!found) throw notFound(kind, name);
    return found;
  };

  const list = (req: Request, res: Response): void => {
    const principal = allowed(res, 'read');
    const kind = kindOf(req, res);
    const fields = parseFieldSelector(query(req, 'fieldSelector'));
    const labels = parseLabelSelector(query(req, 'labelSelector'));
    const pathNamespace = req.params.namespace === undefined ? undefined : String(req.params.namespace);
    const namespace = pathNamespace ?? fields.namespace;
    const scope = { tenant: principal.tenant, kind, namespace, name: fields.name };
    const matches = (r: AnyStoredResource): boolean => fields.matches({ 'metadata.name': r.name, 'metadata.namespace': r.namespace });
    const table = wantsTable(req);
    const render = (object: KubeObject): unknown => (table ? toTable(kind, [object], { includeObject: includeObjectOf(req), resourceVersion: String(object.metadata.resourceVersion) }) : object);
    if (query(req, 'watch') === 'true' || query(req, 'watch') === '1') {
      serveWatch(req, res, store, {
        scope, kind, matches, labels, render,
        fromRevision: nonNegativeInteger(query(req, 'resourceVersion'), 'resourceVersion'),
        bookmarks: query(req, 'allowWatchBookmarks') === 'true',
        timeoutSeconds: nonNegativeInteger(query(req, 'timeoutSeconds'), 'timeoutSeconds'),
      }, timing);
      return;
    }
    const limit = nonNegativeInteger(query(req, 'limit'), 'limit') || Number.MAX_SAFE_INTEGER;
    const token = query(req, 'continue');
    const after = token ? (decodeCursor(token, 3) as [string, string, number]) : undefined;
    // A continued list answers at the revision of its first page, as Kubernetes does.
    const revision = after?.[2] ?? store.resources.revision();
    const items: AnyStoredResource[] = [];
    let cursor: [string, string] | undefined = after ? [after[0], after[1]] : undefined;
    let more = false;
    while (items.length < limit) {
      const page = store.history.pageByName(scope, Math.min(limit - items.length, 1000), cursor);
      items.push(...page.items.filter((r) => matches(r) && labels(r.labels)));
      const last = page.items.at(-1);
      more = page.more;
      if (!page.more || !last) break;
      cursor = [last.namespace, last.name];
    }
    const lastShown = items.at(-1);
    const continueToken = more && lastShown ? encodeCursor([lastShown.namespace, lastShown.name, revision]) : undefined;
    const objects = items.map(toKubeObject);
    if (table) {
      res.json(toTable(kind, objects, { includeObject: includeObjectOf(req), resourceVersion: String(revision), continueToken }));
      return;
    }
    res.json({ apiVersion: GROUP_VERSION, kind: KIND_NAMES[kind].listKind, metadata: { resourceVersion: String(revision), ...(continueToken ? { continue: continueToken } : {}) }, items: objects });
  };

  const get = (req: Request, res: Response): void => {
    const principal = allowed(res, 'read');
    const kind = kindOf(req, res);
    const object = toKubeObject(find(principal.tenant, kind, String(req.params.namespace), String(req.params.name)));
    res.json(wantsTable(req) ? toTable(kind, [object], { includeObject: includeObjectOf(req), resourceVersion: String(object.metadata.resourceVersion) }) : object);
  };

  const create = (req: Request, res: Response): void => {
    const principal = allowed(res, 'write');
    const kind = kindOf(req, res);
    const namespace = String(req.params.namespace);
    const manifest = toManifest(asKubeObject(req.body, kind), kind, namespace);
    if (store.resources.find(principal.tenant, { kind, namespace, name: manifest.metadata.name })) {
      throw new AlreadyExistsError(`${KIND_NAMES[kind].plural}.${GROUP} "${manifest.metadata.name}" already exists`);
    }
    checkHostAccess(store, principal, [manifest]);
    if (isDryRun(req)) {
      // Rehearsed and undone, so a dry run is refused where the create would be (a plan's quota).
      store.resources.rehearse(() => store.resources.create(principal.tenant, SOURCE, manifest));
      res.status(201).json(toKubeObject(preview(manifest, undefined, principal.tenant)));
      return;
    }
    const created = store.resources.create(principal.tenant, SOURCE, manifest);
    deps.afterWrite();
    res.status(201).json(toKubeObject(created));
  };

  /** Writes `next(current object)` over the stored resource (PUT and every PATCH but a creating apply). */
  const write = (req: Request, res: Response, next: (current: KubeObject) => KubeObject, preconditionFrom: 'body' | 'patch', onWritten?: (uid: string) => void): void => {
    const principal = allowed(res, 'write');
    const kind = kindOf(req, res);
    const namespace = String(req.params.namespace);
    const name = String(req.params.name);
    const current = find(principal.tenant, kind, namespace, name);
    const nextObject = next(toKubeObject(current));
    const manifest = manifestAt(nextObject, kind, namespace, name);
    checkHostAccess(store, principal, [manifest]);
    const sent = resourceVersionOf(nextObject);
    // A patch preconditions only when it changed resourceVersion itself; PUT always does when it sends one.
    const precondition = preconditionFrom === 'body' || sent !== current.resourceVersion ? sent : undefined;
    const modify = (): AnyStoredResource => store.resources.modifyAtResourceVersion(current.uid, SOURCE, () => manifest, precondition);
    if (isDryRun(req)) {
      // Refused as the write would be (stale resourceVersion, another owner, being deleted).
      store.resources.rehearse(modify);
      res.json(toKubeObject(preview(manifest, current, principal.tenant)));
      return;
    }
    const updated = modify();
    onWritten?.(updated.uid);
    deps.afterWrite();
    res.json(toKubeObject(updated));
  };

  const put = (req: Request, res: Response): void => {
    write(req, res, () => asKubeObject(req.body, kindOf(req, res)), 'body');
  };

  const patch = (req: Request, res: Response): void => {
    const principal = allowed(res, 'write');
    const kind = kindOf(req, res);
    const type = patchTypeOf(req.get('Content-Type'));
    const namespace = String(req.params.namespace);
    const name = String(req.params.name);
    if (type === 'apply') {
      const manager = query(req, 'fieldManager');
      if (manager === undefined || manager === '') throw new ValidationError('server-side apply needs a fieldManager query parameter', [{ pointer: '/fieldManager', message: 'required for apply patches' }]);
      const applied = appliedConfiguration(req.body);
      const force = query(req, 'force') === 'true';
      const existing = store.resources.find(principal.tenant, { kind, namespace, name });
      if (existing) {
        const next = (current: KubeObject): KubeObject => {
          const previous = store.appliedConfigurations.get(existing.uid, manager)?.config;
          const { object, conflicts } = serverSideApply(current, previous, applied, force);
          if (conflicts.length > 0) {
            throw new ConflictError(
              `Apply failed with ${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}: conflict with another field manager using ${GROUP_VERSION}: ${conflicts.join(', ')}; re-apply with --force-conflicts to take ${conflicts.length === 1 ? 'it' : 'them'} over`,
              conflicts.map((field) => ({ pointer: field.replaceAll('.', '/'), message: `conflict with another field manager: ${field}` })),
            );
          }
          return object as KubeObject;
        };
        write(req, res, next, 'patch', (uid) => store.appliedConfigurations.set(uid, manager, applied));
        return;
      }
      const manifest = manifestAt(structuredClone(applied), kind, namespace, name);
      checkHostAccess(store, principal, [manifest]);
      if (isDryRun(req)) {
        res.status(201).json(toKubeObject(preview(manifest, undefined, principal.tenant)));
        return;
      }
      const created = store.resources.create(principal.tenant, SOURCE, manifest);
      store.appliedConfigurations.set(created.uid, manager, applied);
      deps.afterWrite();
      res.status(201).json(toKubeObject(created));
      return;
    }
    write(req, res, (current) => applyPatch(current, type, req.body) as unknown as KubeObject, 'patch');
  };

  const remove = (req: Request, res: Response): void => {
    const principal = allowed(res, 'write');
    const kind = kindOf(req, res);
    const current = find(principal.tenant, kind, String(req.params.namespace), String(req.params.name));
    if (isDryRun(req)) {
      res.json(toKubeObject(current));
      return;
    }
    const marked = store.resources.requestDeletionOf(current.uid, SOURCE);
    deps.afterWrite();
    res.json(toKubeObject(marked));
  };

  const statusWrite = (req: Request, res: Response): void => {
    allowed(res, 'write');
    const kind = kindOf(req, res);
    throw new ForbiddenError(`the status of ${KIND_NAMES[kind].plural} is written only by cairn's reconciler; change spec instead`);
  };

  router.get(`${BASE}/:plural`, list);
  router.get(`${BASE}/namespaces/:namespace/:plural`, list);
  router.post(`${BASE}/namespaces/:namespace/:plural`, create);
  router.get(`${BASE}/namespaces/:namespace/:plural/:name`, get);
  router.put(`${BASE}/namespaces/:namespace/:plural/:name`, put);
  router.patch(`${BASE}/namespaces/:namespace/:plural/:name`, patch);
  router.delete(`${BASE}/namespaces/:namespace/:plural/:name`, remove);
  router.get(`${BASE}/namespaces/:namespace/:plural/:name/status`, get);
  router.put(`${BASE}/namespaces/:namespace/:plural/:name/status`, statusWrite);
  router.patch(`${BASE}/namespaces/:namespace/:plural/:name/status`, statusWrite);
  return router;
}
