/**
 * @module `/me/preferences`: the signed-in user's dashboard settings (which widgets are shown,
 * in what order), one JSON object of at most 16 KB replaced whole. Every role may read and set
 * its own; they are kept per subject, so they follow the user to another browser.
 */
import { Router } from 'express';
import { PayloadTooLargeError } from '../../model/errors.js';
import { allowed } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { validateBody } from '../request-validation.js';

/** The most a user's preferences may weigh, as UTF-8 JSON. */
export const MAX_PREFERENCES_BYTES = 16 * 1024;

export function preferenceRoutes(deps: ApiDeps): Router {
  const router = Router();
  const { store } = deps;

  router.get('/me/preferences', (_req, res) => {
    const principal = allowed(res, 'read');
    res.json(store.dashboardPreferences.get(principal.tenant, principal.subject)?.preferences ?? {});
  });

  router.put('/me/preferences', (req, res) => {
    const principal = allowed(res, 'read');
    const size = Buffer.byteLength(JSON.stringify(req.body ?? null), 'utf8');
    if (size > MAX_PREFERENCES_BYTES) {
      throw new PayloadTooLargeError(`preferences are at most ${MAX_PREFERENCES_BYTES} bytes of JSON; these are ${size}`);
    }
    const preferences = validateBody<Record<string, unknown>>('put', '/me/preferences', req.body);
    res.json(store.dashboardPreferences.put(principal.tenant, principal.subject, preferences).preferences);
  });

  return router;
}
