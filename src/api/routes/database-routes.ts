/**
 * @module `/databases`: create, list, read, change and delete databases (a final backup first
 * unless skipped), their credentials (audited; never for viewers), rotation, backups, restores.
 */
import { Router, type Request } from 'express';
import { ConflictError, NotFoundError, ValidationError } from '../../model/errors.js';
import { connectionString } from '../../model/connection-string.js';
import type { StoredResource } from '../../model/resource.js';
import { allowed } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { ListCache, listKey } from '../list-cache.js';
import { listBody, pageRequest, queryText } from '../pagination.js';
import {
  databaseManifest, databaseRecord, updatedDatabaseManifest, type DatabaseCreateBody, type DatabaseUpdateBody,
} from '../records/database-record.js';
import { SKIP_FINAL_BACKUP_ANNOTATION } from '../../reconcile/final-backup.js';
import { ResourceLookup } from '../records/lookup.js';
import { checkManifest } from '../records/manifest-check.js';
import { backupRecord } from '../records/operation-record.js';
import { validateBody } from '../request-validation.js';
import { pathId, sendRecord, setLocation } from '../respond.js';
import { databaseRuntimeOf } from '../runtime-access.js';
import { expectedVersion } from '../versioning.js';

function booleanQuery(req: Request, name: string): boolean {
  const text = queryText(req, name);
  if (text === undefined || text === 'false') return false;
  if (text === 'true') return true;
  throw new ValidationError(`${name} must be true or false`, [{ pointer: `/${name}`, message: 'must be true or false' }]);
}

export function databaseRoutes(deps: ApiDeps): Router {
  const router = Router();
  const lists = new ListCache();
  const { store } = deps;
  const lookupFor = (tenant: string): ResourceLookup => new ResourceLookup(store, tenant);

  router.get('/databases', (req, res) => {
    const principal = allowed(res, 'read');
    const request = pageRequest(req);
    const body = lists.page(listKey(principal.tenant, 'Database', request), store.resources.revision(), () => {
      const lookup = lookupFor(principal.tenant);
      const page = store.resources.page({ tenant: principal.tenant, kind: 'Database' }, request);
      return listBody(page, (r) => databaseRecord(r as StoredResource<'Database'>, lookup));
    });
    res.type('json').send(body);
  });

  router.post('/databases', (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<DatabaseCreateBody>('post', '/databases', req.body);
    const lookup = lookupFor(principal.tenant);
    const server = body.server_id === undefined ? undefined : lookup.referenced('Server', body.server_id, '/server_id').name;
    const provider = body.provider_id === undefined ? undefined : lookup.referenced('Provider', body.provider_id, '/provider_id').name;
    const manifest = checkManifest(databaseManifest(body, { ...(server !== undefined ? { server } : {}), ...(provider !== undefined ? { provider } : {}) }));
    const created = store.resources.create(principal.tenant, 'api', manifest) as StoredResource<'Database'>;
    deps.afterWrite();
    setLocation(req, res, 'databases', created.uid);
    sendRecord(res, 202, created.specVersion, databaseRecord(created, lookup));
  });

  router.get('/databases/:id', (req, res) => {
    const principal = allowed(res, 'read');
    const lookup = lookupFor(principal.tenant);
    const db = lookup.byId('Database', pathId(req));
    sendRecord(res, 200, db.specVersion, databaseRecord(db, lookup));
  });

  router.put('/databases/:id', (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<DatabaseUpdateBody>('put', '/databases/{id}', req.body);
    const lookup = lookupFor(principal.tenant);
    const current = lookup.byId('Database', pathId(req));
    const manifest = checkManifest(updatedDatabaseManifest(current, body));
    const updated = store.resources.modify(current.uid, 'api', () => manifest, expectedVersion(req, current)) as StoredResource<'Database'>;
    deps.afterWrite();
    sendRecord(res, 202, updated.specVersion, databaseRecord(updated, lookup));
  });

  router.delete('/databases/:id', (req, res) => {
    const principal = allowed(res, 'write');
    const skipFinalBackup = booleanQuery(req, 'skip_final_backup');
    const lookup = lookupFor(principal.tenant);
    const current = lookup.byId('Database', pathId(req));
    const version = expectedVersion(req, current);
    // Annotated even while already deleting: that is how a failed final backup is skipped.
    const deleting = store.transaction(() => {
      const marked = store.resources.requestDeletionOf(current.uid, 'api', version) as StoredResource<'Database'>;
      if (!skipFinalBackup) return marked;
      store.resources.annotate(current.uid, SKIP_FINAL_BACKUP_ANNOTATION, 'true');
      return lookup.byId('Database', current.uid);
    });
    deps.afterWrite();
    sendRecord(res, 202, deleting.specVersion, databaseRecord(deleting, lookup));
  });

  router.get('/databases/:id/credentials', async (req, res) => {
    const principal = allowed(res, 'read_credentials');
    const lookup = lookupFor(principal.tenant);
    const db = lookup.byId('Database', pathId(req));
    const password = store.secrets.get(db.tenant, 'database-password', db.uid);
    if (password === undefined) throw new ConflictError(`database ${db.name} has no credentials yet (status ${db.status.phase}); they exist once it is created`);
    const { databases, externalId } = await databaseRuntimeOf(deps.drivers, lookup, db);
    const endpoint = await databases.endpoint(externalId);
    store.auditLog.append({ tenant: principal.tenant, actor: principal.subject, action: 'database.credentials.read', target: db.uid });
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      username: endpoint.username,
      password,
      host: endpoint.host,
      port: endpoint.port,
      database: endpoint.database,
      connection_string: connectionString(db.spec.type, endpoint, password),
    });
  });

  router.post('/databases/:id/credentials/rotate', (req, res) => {
    const principal = allowed(res, 'read_credentials');
    allowed(res, 'write');
    const db = lookupFor(principal.tenant).byId('Database', pathId(req));
    const action = store.actions.request(principal.tenant, db.uid, 'rotate_credentials', {});
    store.auditLog.append({ tenant: principal.tenant, actor: principal.subject, action: 'database.credentials.rotate', target: db.uid });
    deps.afterWrite();
    res.status(202).json({ id: db.uid, status: db.status.phase, operation_id: action.id });
  });

  router.get('/databases/:id/backups', (req, res) => {
    const principal = allowed(res, 'read');
    const db = lookupFor(principal.tenant).byId('Database', pathId(req));
    res.json(listBody(store.backups.page(db.uid, pageRequest(req)), backupRecord));
  });

  router.post('/databases/:id/backups', (req, res) => {
    const principal = allowed(res, 'write');
    validateBody('post', '/databases/{id}/backups', req.body ?? {});
    const db = lookupFor(principal.tenant).byId('Database', pathId(req));
    if (db.deletionTimestamp !== null) throw new ConflictError(`database ${db.name} is being deleted`);
    const backup = store.backups.request(principal.tenant, db.uid, 'manual');
    deps.afterWrite();
    setLocation(req, res, `databases/${db.uid}/backups`, backup.id);
    res.status(202).json(backupRecord(backup));
  });

  router.post('/databases/:id/backups/:backup_id/restore', (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<{ rotate_credentials?: boolean }>('post', '/databases/{id}/backups/{backup_id}/restore', req.body ?? {});
    const db = lookupFor(principal.tenant).byId('Database', pathId(req));
    const backup = store.backups.get(pathId(req, 'backup_id'));
    if (!backup || backup.tenant !== principal.tenant || backup.databaseUid !== db.uid) {
      throw new NotFoundError(`database ${db.name} has no backup ${pathId(req, 'backup_id')}`);
    }
    if (backup.status !== 'completed') throw new ConflictError(`backup ${backup.id} is ${backup.status}; only a completed backup can be restored`);
    if (db.deletionTimestamp !== null) throw new ConflictError(`database ${db.name} is being deleted`);
    const action = store.actions.request(principal.tenant, db.uid, 'restore', { backupId: backup.id, rotateCredentials: body.rotate_credentials ?? false });
    deps.afterWrite();
    res.status(202).json({ operation_id: action.id, status: 'restoring' });
  });

  return router;
}
