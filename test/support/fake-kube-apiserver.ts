/**
 * @module A small Kubernetes API server for testing controller mode without a cluster: cairn's
 * custom resources with list, watch (event history from a resourceVersion, bookmarks when
 * allowed, ERROR 410 Expired before the compacted revision), get, create, merge patch,
 * delete with finalizers (deletionTimestamp first, gone once the finalizers are), and the
 * status subresource; Leases with resourceVersion conflicts; Events; Secrets. Loopback HTTP,
 * port 0. It records the watch requests it served, for tests to look at.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express, { type Request, type Response } from 'express';

type Obj = { apiVersion: string; kind: string; metadata: Record<string, unknown>; [k: string]: unknown };

interface HistoryEntry {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  path: string;
  object: Obj;
}

const KINDS: Record<string, string> = { providers: 'Provider', servers: 'Server', databases: 'Database', apps: 'App' };

function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete result[k];
    else result[k] = mergePatch(result[k], v);
  }
  return result;
}

export interface FakeKubeApiServer {
  url: string;
  /** Every watch request's query, in order. */
  watches: Array<Record<string, string>>;
  events: Obj[];
  objects(plural: string): Obj[];
  get(path: string): Obj | undefined;
  create(plural: string, namespace: string, object: Obj): Obj;
  patch(plural: string, namespace: string, name: string, patch: unknown): Obj;
  delete(plural: string, namespace: string, name: string): void;
  setSecret(namespace: string, name: string, data: Record<string, string>): void;
  /** Forgets history up to now: a watch from an older resourceVersion gets 410 Expired. */
  compact(): void;
  /** Ends every open watch (as an API server restart or timeout would). */
  dropWatches(): void;
  /** The next `n` list requests answer 500. */
  failLists(n: number): void;
  /** Creates an object no watch is told of (only a list shows it), as a watch that silently missed an event. */
  createUnseen(plural: string, namespace: string, object: Obj): Obj;
  close(): Promise<void>;
}

export async function startFakeKubeApiServer(): Promise<FakeKubeApiServer> {
  const store = new Map<string, Obj>();
  const history: HistoryEntry[] = [];
  const watches: Array<Record<string, string>> = [];
  const events: Obj[] = [];
  const open = new Set<Response>();
  const listeners = new Set<(e: HistoryEntry) => void>();
  let rv = 100;
  let compacted = 0;
  let failingLists = 0;

  const keyOf = (plural: string, ns: string, name: string): string => `${plural}/${ns}/${name}`;
  /** While true, writes reach neither open watches nor the history a new watch replays (a watch that missed them). */
  let unseen = false;
  const record = (type: HistoryEntry['type'], path: string, object: Obj): Obj => {
    rv += 1;
    object.metadata.resourceVersion = String(rv);
    if (unseen) return object;
    const entry = { rv, type, path, object: structuredClone(object) };
    history.push(entry);
    for (const l of listeners) l(entry);
    return object;
  };
  const write = (path: string, object: Obj, type: 'ADDED' | 'MODIFIED'): Obj => {
    const meta = object.metadata;
    if (meta.deletionTimestamp && (!Array.isArray(meta.finalizers) || meta.finalizers.length === 0)) {
      store.delete(path);
      return record('DELETED', path, object);
    }
    store.set(path, object);
    return record(type, path, object);
  };
  const api = {
    create: (plural: string, namespace: string, object: Obj): Obj => {
      const path = keyOf(plural, namespace, String(object.metadata.name));
      if (store.has(path)) throw Object.assign(new Error('AlreadyExists'), { status: 409 });
      // Unique across servers, as a cluster's are: vendor idempotency keys derive from them.
      const created = structuredClone(object);
      created.metadata = { ...created.metadata, namespace, uid: randomUUID(), generation: 1, creationTimestamp: new Date().toISOString() };
      return write(path, created, 'ADDED');
    },
    patch: (plural: string, namespace: string, name: string, patch: unknown): Obj => {
      const path = keyOf(plural, namespace, name);
      const current = store.get(path);
      if (!current) throw Object.assign(new Error('NotFound'), { status: 404 });
      const next = mergePatch(current, patch) as Obj;
      if (JSON.stringify(next.spec) !== JSON.stringify(current.spec)) next.metadata.generation = Number(current.metadata.generation) + 1;
      return write(path, next, 'MODIFIED');
    },
    delete: (plural: string, namespace: string, name: string): void => {
      const path = keyOf(plural, namespace, name);
      const current = store.get(path);
      if (!current) throw Object.assign(new Error('NotFound'), { status: 404 });
      write(path, { ...current, metadata: { ...current.metadata, deletionTimestamp: current.metadata.deletionTimestamp ?? new Date().toISOString() } }, 'MODIFIED');
    },
  };

  const app = express();
  app.use(express.json({ type: ['application/json', 'application/*+json'] }));
  const fail = (res: Response, code: number, reason: string, message: string): void => {
    res.status(code).json({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason, message, code });
  };
  const guard = (handler: (req: Request, res: Response) => void) => (req: Request, res: Response): void => {
    try {
      handler(req, res);
    } catch (error) {
      const status = (error as { status?: number }).status ?? 500;
      fail(res, status, (error as Error).message, (error as Error).message);
    }
  };

  const listOrWatch = (req: Request, res: Response): void => {
    const plural = String(req.params.plural);
    const ns = req.params.namespace === undefined ? undefined : String(req.params.namespace);
    const inScope = (path: string): boolean => path.startsWith(`${plural}/`) && (ns === undefined || path.startsWith(`${plural}/${ns}/`));
    if (req.query.watch === 'true' || req.query.watch === '1') {
      const query = Object.fromEntries(Object.entries(req.query).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
      watches.push(query);
      const from = Number(query.resourceVersion ?? 0);
      res.status(200).setHeader('Content-Type', 'application/json');
      res.flushHeaders();
      if (from < compacted) {
        res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: `too old resource version: ${from} (${compacted})` } })}\n`);
        return;
      }
      const send = (e: HistoryEntry): void => {
        if (!res.writableEnded && inScope(e.path) && e.rv > from) res.write(`${JSON.stringify({ type: e.type, object: e.object })}\n`);
      };
      for (const e of history) send(e);
      listeners.add(send);
      open.add(res);
      const bookmarks = query.allowWatchBookmarks === 'true' ? setInterval(() => !res.writableEnded && res.write(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: KINDS[plural], apiVersion: 'cairn.dev/v1', metadata: { resourceVersion: String(rv) } } })}\n`), 100) : undefined;
      res.on('close', () => {
        listeners.delete(send);
        open.delete(res);
        clearInterval(bookmarks);
      });
      return;
    }
    if (failingLists > 0) {
      failingLists -= 1;
      fail(res, 500, 'InternalError', 'injected list failure');
      return;
    }
    const items = [...store.entries()].filter(([path]) => inScope(path)).map(([, o]) => o);
    res.json({ apiVersion: 'cairn.dev/v1', kind: `${KINDS[plural] ?? ''}List`, metadata: { resourceVersion: String(rv) }, items });
  };
  const base = '/apis/cairn.dev/v1';
  app.get(`${base}/:plural`, guard(listOrWatch));
  app.get(`${base}/namespaces/:namespace/:plural`, guard(listOrWatch));
  app.post(`${base}/namespaces/:namespace/:plural`, guard((req, res) => {
    res.status(201).json(api.create(String(req.params.plural), String(req.params.namespace), req.body as Obj));
  }));
  app.get(`${base}/namespaces/:namespace/:plural/:name`, guard((req, res) => {
    const found = store.get(keyOf(String(req.params.plural), String(req.params.namespace), String(req.params.name)));
    if (!found) fail(res, 404, 'NotFound', `${String(req.params.plural)} "${String(req.params.name)}" not found`);
    else res.json(found);
  }));
  app.patch(`${base}/namespaces/:namespace/:plural/:name`, guard((req, res) => {
    const body = req.body as { metadata?: Record<string, unknown> };
    const current = store.get(keyOf(String(req.params.plural), String(req.params.namespace), String(req.params.name)));
    if (current && body.metadata?.resourceVersion !== undefined && body.metadata.resourceVersion !== current.metadata.resourceVersion) {
      fail(res, 409, 'Conflict', 'the object has been modified');
      return;
    }
    const { status: _ignored, ...rest } = req.body as Record<string, unknown>;
    res.json(api.patch(String(req.params.plural), String(req.params.namespace), String(req.params.name), rest));
  }));
  app.patch(`${base}/namespaces/:namespace/:plural/:name/status`, guard((req, res) => {
    const path = keyOf(String(req.params.plural), String(req.params.namespace), String(req.params.name));
    const current = store.get(path);
    if (!current) {
      fail(res, 404, 'NotFound', 'not found');
      return;
    }
    const next = { ...current, status: mergePatch(current.status, (req.body as { status?: unknown }).status) };
    res.json(write(path, next, 'MODIFIED'));
  }));
  app.delete(`${base}/namespaces/:namespace/:plural/:name`, guard((req, res) => {
    api.delete(String(req.params.plural), String(req.params.namespace), String(req.params.name));
    res.json({ kind: 'Status', apiVersion: 'v1', status: 'Success' });
  }));

  const leases = new Map<string, Obj>();
  app.get('/apis/coordination.k8s.io/v1/namespaces/:namespace/leases/:name', (req, res) => {
    const lease = leases.get(`${String(req.params.namespace)}/${String(req.params.name)}`);
    if (!lease) fail(res, 404, 'NotFound', `leases.coordination.k8s.io "${String(req.params.name)}" not found`);
    else res.json(lease);
  });
  app.post('/apis/coordination.k8s.io/v1/namespaces/:namespace/leases', (req, res) => {
    const body = req.body as Obj;
    const key = `${String(req.params.namespace)}/${String(body.metadata.name)}`;
    if (leases.has(key)) {
      fail(res, 409, 'AlreadyExists', 'lease exists');
      return;
    }
    rv += 1;
    const lease = { ...body, metadata: { ...body.metadata, namespace: String(req.params.namespace), resourceVersion: String(rv) } };
    leases.set(key, lease);
    res.status(201).json(lease);
  });
  app.put('/apis/coordination.k8s.io/v1/namespaces/:namespace/leases/:name', (req, res) => {
    const key = `${String(req.params.namespace)}/${String(req.params.name)}`;
    const current = leases.get(key);
    const body = req.body as Obj;
    if (!current || body.metadata.resourceVersion !== current.metadata.resourceVersion) {
      fail(res, 409, 'Conflict', 'Operation cannot be fulfilled on leases: the object has been modified');
      return;
    }
    rv += 1;
    const lease = { ...body, metadata: { ...body.metadata, resourceVersion: String(rv) } };
    leases.set(key, lease);
    res.json(lease);
  });
  app.post('/api/v1/namespaces/:namespace/events', (req, res) => {
    events.push(req.body as Obj);
    res.status(201).json(req.body);
  });
  const secrets = new Map<string, Obj>();
  app.get('/api/v1/namespaces/:namespace/secrets/:name', (req, res) => {
    const secret = secrets.get(`${String(req.params.namespace)}/${String(req.params.name)}`);
    if (!secret) fail(res, 404, 'NotFound', `secrets "${String(req.params.name)}" not found`);
    else res.json(secret);
  });
  app.use((req, res) => fail(res, 404, 'NotFound', `the fake API server does not serve ${req.method} ${req.path}`));

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url, watches, events,
    objects: (plural) => [...store.entries()].filter(([p]) => p.startsWith(`${plural}/`)).map(([, o]) => o),
    get: (path) => store.get(path),
    create: api.create,
    patch: api.patch,
    delete: api.delete,
    setSecret: (namespace, name, data) => {
      secrets.set(`${namespace}/${name}`, { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) });
    },
    compact: () => {
      compacted = rv;
      history.length = 0;
    },
    dropWatches: () => {
      listeners.clear();
      for (const res of open) res.end();
      open.clear();
    },
    failLists: (n) => {
      failingLists = n;
    },
    createUnseen: (plural, namespace, object) => {
      unseen = true;
      try {
        return api.create(plural, namespace, object);
      } finally {
        unseen = false;
      }
    },
    close: async () => {
      for (const res of open) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
