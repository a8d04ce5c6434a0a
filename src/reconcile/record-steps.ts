/**
 * @module Vendor calls made for a record (an action, a backup, a deployment): a refusal the vendor
 * will never take back ends that record as failed, with the vendor's reason, instead of
 * stalling the whole resource; anything that may pass is thrown, to be retried with backoff.
 */
import { UnsupportedError, VendorAuthError, VendorRejectedError } from '../drivers/errors.js';
import { doing } from './errors.js';

export type Attempt<T> = { ok: true; value: T } | { ok: false; message: string };

/** Runs `action`, wrapping its errors with `what`; a vendor refusal is returned, everything else thrown. */
export async function attempt<T>(what: string, action: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await doing(what, action) };
  } catch (error) {
    // Refused credentials are the provider's problem, not this record's: the resource stalls on them.
    const refused = (error instanceof VendorRejectedError && !(error instanceof VendorAuthError)) || error instanceof UnsupportedError;
    if (refused) return { ok: false, message: error.message };
    throw error;
  }
}
