/**
 * @module Asking for a deployment of an App: the one path `POST /apps/{id}/deploy` and the push
 * webhook share. The deployment is queued and the App's manifest carries its id (an annotation),
 * so a deploy of an unchanged App still rolls out a new release; a ref given moves the App's git
 * source to it. Both happen in one transaction.
 */
import { ConflictError } from '../model/errors.js';
import type { StoredResource } from '../model/resource.js';
import type { DeploymentRecord } from '../store/records.js';
import type { Store } from '../store/store.js';
import { updatedAppManifest } from './records/app-record.js';

/** Set by each API deploy, so that a deploy of an unchanged app still rolls out a new release. */
export const DEPLOYMENT_ANNOTATION = 'cairn.dev/deployment';

export interface DeployAsk {
  /** A ref to move the App's git source to; absent keeps its ref. */
  ref?: string;
  trigger: 'api' | 'webhook';
  /** The pushed commit a webhook asks for (the ref's head it rolls out). */
  commit?: string | null;
  /** The webhook delivery's id: a replay of it finds this deployment again. */
  deliveryId?: string;
}

export function requestDeployment(store: Store, app: StoredResource<'App'>, ask: DeployAsk): DeploymentRecord {
  if (app.deletionTimestamp !== null) throw new ConflictError(`app ${app.name} is being deleted`);
  const git = app.spec.source.git;
  return store.transaction(() => {
    const requested = store.deployments.request(app.tenant, app.uid, {
      ref: ask.ref ?? null, trigger: ask.trigger, commit: ask.commit ?? null, deliveryId: ask.deliveryId ?? null,
    });
    const source = ask.ref !== undefined && git ? { git: { ...git, ref: ask.ref } } : undefined;
    // A webhook changes no spec, only the annotation, so it writes as the App's owner (an App from
    // a manifest or a git source stays theirs); an API deploy may move the ref, so it is the API's.
    store.resources.modify(app.uid, ask.trigger === 'webhook' ? app.source : 'api', (r) =>
      updatedAppManifest(r as StoredResource<'App'>, source ? { source } : {}, undefined, { [DEPLOYMENT_ANNOTATION]: requested.id }));
    return requested;
  });
}
