/**
 * @module The API's door to cairn's host: a write that declares a Provider of the `local` vendor,
 * or one that reads cairn's environment through `credentialsRef.env`, is refused with 403 unless
 * the operator lets the tenant use the host and, for `local`, the caller is an owner or admin.
 * The reconcile loop refuses the same (driver-pool.ts), whatever path the manifest came by.
 */
import type { Principal } from '../auth/principal.js';
import { ForbiddenError } from '../model/errors.js';
import type { AnyManifest } from '../model/resource.js';
import { environmentRefusal, LOCAL_VENDOR, localProviderRoleRefusal, localVendorRefusal, tenantMayUseHost } from '../security/host-access.js';
import type { Store } from '../store/store.js';

/** Throws ForbiddenError when any of `manifests` needs host access this caller does not have. */
export function checkHostAccess(store: Store, principal: Principal, manifests: readonly AnyManifest[]): void {
  for (const manifest of manifests) {
    if (manifest.kind !== 'Provider') continue;
    const local = manifest.spec.vendor === LOCAL_VENDOR;
    const variable = manifest.spec.credentialsRef?.env;
    if (!local && variable === undefined) continue;
    const name = store.tenants.get(principal.tenant)?.name;
    const label = name ?? principal.tenant;
    const where = `Provider/${manifest.metadata.name}`;
    if (!tenantMayUseHost(principal.tenant, name)) {
      throw new ForbiddenError(`${where}: ${local ? localVendorRefusal(label) : environmentRefusal(label, variable!)}`);
    }
    const roleRefusal = local ? localProviderRoleRefusal(principal.role) : undefined;
    if (roleRefusal !== undefined) throw new ForbiddenError(`${where}: ${roleRefusal}`);
  }
}
