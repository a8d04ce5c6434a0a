/**
 * @module `/migrations`: moving a Railway project (platform A) or a Heroku app (platform B) onto a
 * cairn server. Listing and analyzing read the platform with the caller's API key; migrating
 * analyzes, records the migration and hands it to the runner (src/migrations/runner.ts), which
 * runs its steps in the background of `cairn serve`; `GET /migrations/{id}` shows them. The API
 * key goes to the platform's own API host only, lives in memory for the run, and is never stored
 * or logged (the request log drops query strings; bodies are never logged). Viewers may list and
 * analyze; migrating takes a role that may write.
 */
import { Router, type RequestHandler } from 'express';
import { ConflictError, ProviderError, ValidationError } from '../../model/errors.js';
import { DEFAULT_NAMESPACE } from '../../model/resource.js';
import { manifestsFromAnalysis, MigrationManifestError } from '../../migrations/manifests.js';
import type { MigrationPlatforms } from '../../migrations/platforms.js';
import type { MigrationPlatform, PlatformAnalysis } from '../../migrations/platform.js';
import type { MigrationRunner } from '../../migrations/runner.js';
import { STEP_NAMES } from '../../migrations/steps.js';
import type { Principal } from '../../auth/principal.js';
import { allowed } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { listBody, pageRequest, queryText } from '../pagination.js';
import { analysisRecord, listingRecord, migrationRecord } from '../records/migration-record.js';
import { validateBody } from '../request-validation.js';
import { postgresInstallations } from '../../drivers/local/postgres-installations.js';
import { LOCAL_VENDOR } from '../../security/host-access.js';
import { decodeCursor, toPage, type Page, type PageRequest } from '../../store/paging.js';
import { pathId } from '../respond.js';

/** What the routes need: the platforms and the runner of this process. */
export interface MigrationService {
  platforms: MigrationPlatforms;
  runner: MigrationRunner;
}

function apiKeyFromQuery(req: Parameters<typeof queryText>[0]): string {
  const key = queryText(req, 'api_key');
  if (key === undefined || key === '') throw new ValidationError('api_key is required: the platform\'s API key or token', [{ pointer: '/api_key', message: 'is required' }]);
  if (key.length > 1024) throw new ValidationError('api_key is longer than 1024 characters', [{ pointer: '/api_key', message: 'too long' }]);
  return key;
}

/** One page of what a platform listed whole, the cursor holding the offset of the next page. */
function pageOf<T>(items: readonly T[], request: PageRequest): Page<T> {
  const offset = request.cursor === undefined ? 0 : Number(decodeCursor(request.cursor, 1)[0]);
  const rows = items.slice(offset, offset + request.limit + 1);
  const page = toPage(rows, request.limit, () => [offset + request.limit]);
  return page;
}

/** The server a migration targets, by id in the caller's tenant; a 422 on `server_id` otherwise. */
function serverOf(deps: ApiDeps, tenant: string, serverId: string): { id: string; name: string } {
  const server = deps.store.resources.get(serverId);
  if (!server || server.tenant !== tenant || server.kind !== 'Server' || server.deletionTimestamp !== null) {
    throw new ValidationError(`server_id: no server has id ${serverId}`, [{ pointer: '/server_id', message: 'no such server' }]);
  }
  return { id: server.uid, name: server.name };
}

/**
 * The engine versions a platform database gets when the platform does not say: on a server of the
 * local vendor, the newest PostgreSQL installed on this host (the only ones it can run).
 */
function defaultVersionsOn(deps: ApiDeps, tenant: string, serverId: string | undefined): Partial<Record<'postgresql' | 'mongodb', string>> {
  const server = serverId === undefined ? undefined : deps.store.resources.get(serverId);
  if (!server || server.kind !== 'Server') return {};
  const provider = deps.store.resources.find(tenant, { kind: 'Provider', namespace: server.namespace, name: server.spec.provider });
  const newest = provider?.spec.vendor === LOCAL_VENDOR ? postgresInstallations()[0]?.major : undefined;
  return newest === undefined ? {} : { postgresql: newest };
}

function manifestsOrProblem(analysis: PlatformAnalysis, server?: { name: string; defaultVersions: Partial<Record<'postgresql' | 'mongodb', string>> }): ReturnType<typeof manifestsFromAnalysis> {
  try {
    return manifestsFromAnalysis(analysis, server === undefined ? {} : { server: server.name, defaultVersions: server.defaultVersions });
  } catch (error) {
    if (error instanceof MigrationManifestError) throw new ProviderError(`what the platform says of ${analysis.subject.name} cannot become cairn manifests: ${error.message}`);
    throw error;
  }
}

/** Refuses (409) before anything is recorded when a Database or App of the same name exists already. */
function refuseTakenNames(deps: ApiDeps, tenant: string, analysis: PlatformAnalysis): void {
  const taken = [
    ...analysis.databases.map((d) => ({ kind: 'Database' as const, name: d.name })),
    ...analysis.apps.map((a) => ({ kind: 'App' as const, name: a.name })),
  ].filter((r) => deps.store.resources.find(tenant, { ...r, namespace: DEFAULT_NAMESPACE }) !== undefined);
  if (taken.length > 0) {
    throw new ConflictError(`${taken.map((r) => `${r.kind}/${r.name}`).join(', ')} already exist${taken.length === 1 ? 's' : ''}; delete or rename ${taken.length === 1 ? 'it' : 'them'} before migrating`);
  }
}

export function migrationRoutes(deps: ApiDeps, service: MigrationService): Router {
  const router = Router();
  const { store } = deps;

  async function startMigration(principal: Principal, platform: MigrationPlatform, apiKey: string, subject: string, serverId: string): Promise<Record<string, unknown>> {
    const server = serverOf(deps, principal.tenant, serverId);
    const analysis = await platform.analyze(apiKey, subject);
    const { yaml } = manifestsOrProblem(analysis, { name: server.name, defaultVersions: defaultVersionsOn(deps, principal.tenant, server.id) });
    refuseTakenNames(deps, principal.tenant, analysis);
    // Recorded and claimed together: no other replica resumes it (without the key) before it starts here.
    const migration = store.transaction(() => {
      const created = store.platformMigrations.create({
        tenant: principal.tenant,
        platform: platform.id,
        subject,
        subjectName: analysis.subject.name,
        serverId: server.id,
        serverName: server.name,
        analysis: analysis as unknown as Record<string, unknown>,
        manifests: yaml,
        createdBy: principal.subject,
        stepNames: STEP_NAMES,
      });
      service.runner.claim(created.id);
      return created;
    });
    store.auditLog.append({ tenant: principal.tenant, actor: principal.subject, action: `migration.${platform.id}.start`, target: migration.id });
    service.runner.start(migration, apiKey);
    return migrationRecord(migration);
  }

  /** What the caller's key sees on a platform, paged like every list (answers depend on the key: never cached). */
  function listingRoute(platform: MigrationPlatform): RequestHandler {
    return async (req, res) => {
      allowed(res, 'read');
      const request = pageRequest(req);
      const items = await platform.list(apiKeyFromQuery(req));
      res.setHeader('Cache-Control', 'no-store');
      res.json(listBody(pageOf(items, request), listingRecord));
    };
  }

  router.get('/migrations/platform-a/projects', listingRoute(service.platforms.railway));

  router.post('/migrations/platform-a/migrate', async (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<{ api_key: string; project_id: string; server_id: string }>('post', '/migrations/platform-a/migrate', req.body);
    res.status(202).json(await startMigration(principal, service.platforms.railway, body.api_key, body.project_id, body.server_id));
  });

  router.get('/migrations/platform-b/apps', listingRoute(service.platforms.heroku));

  router.post('/migrations/platform-b/analyze', async (req, res) => {
    const principal = allowed(res, 'read');
    const body = validateBody<{ api_key: string; app_name: string; server_id?: string }>('post', '/migrations/platform-b/analyze', req.body);
    const server = body.server_id === undefined ? undefined : serverOf(deps, principal.tenant, body.server_id);
    const analysis = await service.platforms.heroku.analyze(body.api_key, body.app_name);
    const { yaml, warnings } = manifestsOrProblem(analysis, server && { name: server.name, defaultVersions: defaultVersionsOn(deps, principal.tenant, server.id) });
    res.json(analysisRecord(analysis, yaml, warnings));
  });

  router.post('/migrations/platform-b/migrate', async (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<{ api_key: string; app_name: string; server_id: string }>('post', '/migrations/platform-b/migrate', req.body);
    res.status(202).json(await startMigration(principal, service.platforms.heroku, body.api_key, body.app_name, body.server_id));
  });

  router.get('/migrations', (req, res) => {
    const principal = allowed(res, 'read');
    res.json(listBody(store.platformMigrations.page(principal.tenant, pageRequest(req)), migrationRecord));
  });

  router.get('/migrations/:id', (req, res) => {
    const principal = allowed(res, 'read');
    res.json(migrationRecord(store.platformMigrations.require(principal.tenant, pathId(req))));
  });

  router.post('/migrations/:id/retry', (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<{ api_key?: string }>('post', '/migrations/{id}/retry', req.body ?? {});
    const migration = service.runner.retry(principal.tenant, pathId(req), body.api_key);
    store.auditLog.append({ tenant: principal.tenant, actor: principal.subject, action: 'migration.retry', target: migration.id });
    res.status(202).json(migrationRecord(migration));
  });

  return router;
}
