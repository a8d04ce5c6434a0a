/**
 * @module `POST /manifests`: manifests as YAML (multi-document) or JSON `{manifests: [...]}`,
 * validated all together (422 naming each document and field; nothing applied), then applied
 * as source `api` — or, with `?dry_run=true`, only planned; `&source=NAME` plans them as the whole
 * of that git source's next revision, so that files a pull request deletes show as deletions.
 */
import { Router } from 'express';
import { MalformedRequestError, ValidationError, type FieldIssue } from '../../model/errors.js';
import { loadManifestSources } from '../../model/manifest-loader.js';
import { formatManifestError } from '../../model/manifest-error.js';
import { planToApiJson } from '../../model/plan-render-json.js';
import type { AnyManifest } from '../../model/resource.js';
import { validateManifest } from '../../model/schema-validator.js';
import { planForManifests } from '../../store/plan-for-manifests.js';
import { gitOwner } from '../../store/sources.js';
import { allowed } from '../authentication.js';
import { checkHostAccess } from '../host-access-check.js';
import type { ApiDeps } from '../deps.js';
import { queryText } from '../pagination.js';
import { validateBody } from '../request-validation.js';
import { stringify } from 'yaml';

export const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'];

function fail(issues: FieldIssue[]): never {
  const count = `${issues.length} error${issues.length === 1 ? '' : 's'}`;
  throw new ValidationError(`${count}; nothing was applied: ${issues.map((i) => `${i.pointer}: ${i.message}`).join('; ')}`, issues);
}

/**
 * The manifests of a request, all valid (references to stored resources included), or a 422.
 * JSON documents are checked as YAML text would be, so both bodies meet the same rules.
 */
function manifestsOf(body: unknown, isYaml: boolean, known: (kind: AnyManifest['kind'], namespace: string, name: string) => boolean): AnyManifest[] {
  if (isYaml) {
    if (typeof body !== 'string' || body.trim() === '') throw new ValidationError('the body holds no manifests', [{ pointer: '', message: 'no documents' }]);
    const result = loadManifestSources([{ file: 'body', text: body }], { known });
    if (result.errors.length > 0) {
      fail(result.errors.map((e) => ({ pointer: `/${e.document}${e.pointer}`, message: formatManifestError(e).replace(/^body:/, 'line ') })));
    }
    return result.manifests.map((m) => m.manifest);
  }
  const { manifests } = validateBody<{ manifests: unknown[] }>('post', '/manifests', body);
  const issues = manifests.flatMap((doc, index) => {
    const validation = validateManifest(doc);
    return validation.valid ? [] : validation.issues.map((i) => ({ pointer: `/manifests/${index}${i.pointer}`, message: i.message }));
  });
  if (issues.length > 0) fail(issues);
  // Duplicate names and references are checked by the loader on the same documents as YAML.
  const result = loadManifestSources(manifests.map((doc, index) => ({ file: `manifests[${index}]`, text: stringify(doc) })), { known });
  if (result.errors.length > 0) {
    fail(result.errors.map((e) => ({ pointer: `/manifests/${/\[(\d+)\]/.exec(e.file)?.[1] ?? 0}${e.pointer}`, message: e.message })));
  }
  return result.manifests.map((m) => m.manifest);
}

export function manifestRoutes(deps: ApiDeps): Router {
  const router = Router();
  const { store } = deps;

  router.post('/manifests', (req, res) => {
    const dryRun = queryText(req, 'dry_run');
    if (dryRun !== undefined && dryRun !== 'true' && dryRun !== 'false') {
      throw new ValidationError('dry_run must be true or false', [{ pointer: '/dry_run', message: 'must be true or false' }]);
    }
    // A dry run changes nothing: a viewer's token (CI planning a pull request) may ask for it.
    const principal = allowed(res, dryRun === 'true' ? 'read' : 'write');
    const isYaml = req.is(YAML_TYPES) !== false && req.is(YAML_TYPES) !== null;
    if (!isYaml && req.body === undefined) throw new MalformedRequestError('send manifests as application/yaml or as JSON {"manifests": [...]}');
    const known = (kind: AnyManifest['kind'], namespace: string, name: string): boolean => {
      const found = store.resources.find(principal.tenant, { kind, namespace, name });
      return found !== undefined && found.deletionTimestamp === null;
    };
    const sourceName = queryText(req, 'source');
    if (sourceName !== undefined && dryRun !== 'true') {
      throw new ValidationError('source is only for a dry run: git sources apply their own manifests', [{ pointer: '/source', message: 'needs dry_run=true' }]);
    }
    const source = sourceName === undefined ? undefined : store.sources.findByName(principal.tenant, sourceName);
    if (sourceName !== undefined && !source) throw new ValidationError(`source: no source named ${sourceName}`, [{ pointer: '/source', message: `no source named ${sourceName}` }]);
    const manifests = manifestsOf(req.body, isYaml, known);
    if (dryRun === 'true') {
      // Against a source, the files are that source's whole revision: what they no longer name is deleted.
      const options = source ? { prune: true, tenant: principal.tenant, source: gitOwner(source.id) } : { prune: false, tenant: principal.tenant };
      const { format_version: _version, ...plan } = planToApiJson(planForManifests(store, manifests, options));
      res.json(plan);
      return;
    }
    checkHostAccess(store, principal, manifests);
    const outcome = store.resources.apply(principal.tenant, 'api', manifests);
    deps.afterWrite();
    res.json({
      applied: outcome.results.map((r) => ({ id: r.uid, kind: r.kind, namespace: r.namespace, name: r.name, action: r.action })),
    });
  });

  return router;
}
