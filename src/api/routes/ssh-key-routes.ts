/**
 * @module `/ssh-keys`: SSH keys imported (public half only) or generated (the private key sealed
 * at rest and shown once, in the create answer, when asked), listed, read, and deleted (409
 * while a server uses one); and cairn's own runtime key of the tenant (`/ssh-keys/runtime`),
 * which owners rotate.
 */
import { Router, type Response } from 'express';
import { ForbiddenError } from '../../model/errors.js';
import type { StoredResource } from '../../model/resource.js';
import { markKeyReady, type SshKeyFacts } from '../../reconcile/reconcile-ssh-key.js';
import { StatusDraft } from '../../reconcile/status-draft.js';
import { parsePublicKey } from '../../ssh-keys/key-pairs.js';
import { RuntimeKeys, type RuntimeKey, type RuntimeKeySet } from '../../ssh-keys/runtime-key.js';
import { generatePairFor, sealPairOnce } from '../../ssh-keys/sealed-pairs.js';
import { writeStatusChange } from '../../store/status-change.js';
import { allowed } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { KEPT_BODY } from '../idempotency.js';
import { ListCache, listKey } from '../list-cache.js';
import { listBody, pageRequest } from '../pagination.js';
import { ResourceLookup } from '../records/lookup.js';
import { checkManifest } from '../records/manifest-check.js';
import { checkPublicKeyField, sshKeyManifest, sshKeyRecord, type SshKeyCreateBody } from '../records/ssh-key-record.js';
import { validateBody } from '../request-validation.js';
import { pathId, sendRecord, setLocation } from '../respond.js';
import { expectedVersion } from '../versioning.js';

export function sshKeyRoutes(deps: ApiDeps): Router {
  const router = Router();
  const lists = new ListCache();
  const { store } = deps;
  const runtimeKeys = new RuntimeKeys(store);

  router.get('/ssh-keys', (req, res) => {
    const principal = allowed(res, 'read');
    const request = pageRequest(req);
    const body = lists.page(listKey(principal.tenant, 'SSHKey', request), store.resources.revision(), () => {
      const page = store.resources.page({ tenant: principal.tenant, kind: 'SSHKey' }, request);
      return listBody(page, (r) => sshKeyRecord(r as StoredResource<'SSHKey'>));
    });
    res.type('json').send(body);
  });

  router.post('/ssh-keys', (req, res) => {
    const principal = allowed(res, 'write');
    checkPublicKeyField(req.body);
    const body = validateBody<SshKeyCreateBody>('post', '/ssh-keys', req.body);
    const manifest = checkManifest(sshKeyManifest(body));
    const { name, namespace } = manifest.metadata;
    const imported = manifest.spec.publicKey;
    // Generated outside the transaction (an RSA 4096 pair takes a moment); stored with the
    // resource in one transaction, so the pair this answer shows is the one kept, or none is.
    const pair = imported === undefined ? generatePairFor({ tenant: principal.tenant, uid: '', namespace: namespace ?? 'default', name }, manifest.spec) : undefined;
    const { created, privateKey } = store.transaction(() => {
      const made = store.resources.create(principal.tenant, 'api', manifest) as StoredResource<'SSHKey'>;
      let facts: SshKeyFacts;
      let privateKey: string | undefined;
      if (pair) {
        const stored = sealPairOnce(store.secrets, made, pair);
        facts = { algorithm: stored.algorithm, bits: stored.bits, fingerprint: stored.fingerprint, publicKey: stored.publicKey, generated: true };
        privateKey = stored.privateKey;
      } else {
        const parsed = parsePublicKey(imported!);
        facts = { algorithm: parsed.algorithm, bits: parsed.bits, fingerprint: parsed.fingerprint, publicKey: parsed.publicKey, generated: false };
      }
      writeStatusChange(store.resources, made.uid, (current) => {
        const draft = new StatusDraft(current);
        markKeyReady(draft, facts);
        return draft.status;
      });
      return { created: store.resources.get(made.uid) as StoredResource<'SSHKey'>, privateKey };
    });
    deps.afterWrite();
    setLocation(req, res, 'ssh-keys', created.uid);
    const record = sshKeyRecord(created);
    if (privateKey !== undefined && body.return_private_key === true) {
      // A retry with the same Idempotency-Key replays the answer without the private key: it is shown once, never kept in the clear.
      res.locals[KEPT_BODY] = JSON.stringify(record);
      sendRecord(res, 201, created.specVersion, { ...record, private_key: privateKey });
      return;
    }
    sendRecord(res, 201, created.specVersion, record);
  });

  router.get('/ssh-keys/runtime', (_req, res) => {
    const principal = allowed(res, 'read');
    const keys = runtimeKeys.runtimeKeys(principal.tenant);
    // A read that may have made the key on first need: the key shown (which a host's owner is
    // about to trust) is durable before it is shown, as for any write.
    store.commits.commitNow();
    res.json(runtimeKeyBody(keys));
  });

  router.post('/ssh-keys/runtime/rotate', (_req, res) => {
    const principal = ownerOnly(res);
    const rotated = store.transaction(() => {
      const keys = runtimeKeys.rotateRuntimeKey(principal.tenant);
      store.auditLog.append({ tenant: principal.tenant, actor: principal.subject, action: 'ssh_runtime_key.rotate', target: `ssh-runtime-key:${keys.current.fingerprint}` });
      return keys;
    });
    deps.afterWrite();
    res.json(runtimeKeyBody(rotated));
  });

  router.get('/ssh-keys/:id', (req, res) => {
    const principal = allowed(res, 'read');
    const key = new ResourceLookup(store, principal.tenant).byId('SSHKey', pathId(req));
    sendRecord(res, 200, key.specVersion, sshKeyRecord(key));
  });

  router.delete('/ssh-keys/:id', (req, res) => {
    const principal = allowed(res, 'write');
    const current = new ResourceLookup(store, principal.tenant).byId('SSHKey', pathId(req));
    // Refused (409, naming the servers) while a server names the key.
    const deleting = store.resources.requestDeletionOf(current.uid, 'api', expectedVersion(req, current)) as StoredResource<'SSHKey'>;
    deps.afterWrite();
    sendRecord(res, 202, deleting.specVersion, sshKeyRecord(deleting));
  });

  return router;
}

function ownerOnly(res: Response): ReturnType<typeof allowed> {
  const principal = allowed(res, 'write');
  if (principal.role !== 'owner') throw new ForbiddenError(`only the tenant's owners may rotate cairn's SSH key (your role is ${principal.role})`);
  return principal;
}

function half(key: RuntimeKey): { public_key: string; fingerprint: string; created_at: string } {
  return { public_key: key.publicKey, fingerprint: key.fingerprint, created_at: key.createdAt };
}

function runtimeKeyBody(keys: RuntimeKeySet): Record<string, unknown> {
  return { ...half(keys.current), previous: keys.previous ? half(keys.previous) : null };
}
