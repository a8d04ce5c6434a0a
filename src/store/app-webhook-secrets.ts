/**
 * @module The secrets that sign the push webhooks of Apps with a git source (deploy on push),
 * sealed like a git source's own (`app-webhook`, named by the App's uid). Made when the App is
 * created through the API, or by a rotation (which is how the secret of an App declared in a
 * manifest, a git source or kubectl is first read); removed with the App.
 */
import { newWebhookSecret } from '../sources/webhook-signature.js';
import type { SecretStore } from '../secrets/secret-store.js';

export class AppWebhookSecrets {
  constructor(private readonly secrets: SecretStore) {}

  /** A new secret for the App, replacing any earlier one (which stops verifying at once). */
  rotate(tenant: string, appUid: string): string {
    const secret = newWebhookSecret();
    this.secrets.put(tenant, 'app-webhook', appUid, secret);
    return secret;
  }

  /** The App's secret, or undefined when it has none yet. */
  get(tenant: string, appUid: string): string | undefined {
    return this.secrets.get(tenant, 'app-webhook', appUid);
  }

  remove(tenant: string, appUid: string): void {
    this.secrets.delete(tenant, 'app-webhook', appUid);
  }
}
