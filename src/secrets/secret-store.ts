/**
 * @module What the rest of cairn sees of secrets at rest: values put and got by tenant,
 * purpose and name, encrypted underneath (envelope encryption, see ./envelope.ts).
 */

/** What a secret is for; with the tenant and the name it identifies one value. */
export type SecretPurpose =
  /** A Provider's credential bundle (JSON object of strings); name = the credentials' name. */
  | 'provider-credentials'
  /** A database user's password; name = the Database resource's uid (`<uid>:pending` during rotation). */
  | 'database-password'
  /** A private key that signs access tokens; name = its key id. Tenant `*`. */
  | 'signing-key'
  /** Credentials of a git source; name = the source's id. */
  | 'source-credentials'
  /** The secret that signs a git source's push webhooks; name = the source's id. */
  | 'source-webhook'
  /** The secret that signs an App's push webhooks (deploy on push); name = the App's uid. */
  | 'app-webhook'
  /** A key pair cairn generated for an SSHKey (JSON, see src/ssh-keys/sealed-pairs.ts); name = the SSHKey's uid. */
  | 'ssh-key-pair'
  /** The secret that signs an AlertRule's json webhooks (X-Cairn-Signature-256); name = the rule's uid. */
  | 'alert-webhook'
  /** The secret that signs an event webhook's deliveries (X-Cairn-Signature-256); name = the webhook's id. */
  | 'event-webhook'
  /** cairn's own SSH key pair of a tenant (JSON, see src/ssh-keys/runtime-key.ts); name = `current` or `previous`. */
  | 'ssh-runtime-key'
  /** What a migration read from its platform (JSON: config var values, database URLs); name = the migration's id. */
  | 'migration-values'
  /** An App's sealed environment (JSON object of strings), merged under spec.env; name = `<migration id>/<app name>`, named by the App's `cairn.dev/sealed-env` annotation. */
  | 'app-env';

export interface SecretStore {
  /** Encrypts and stores `value`, replacing any earlier value under the same identity. */
  put(tenant: string, purpose: SecretPurpose, name: string, value: string): void;
  /**
   * Encrypts and stores `value` only when nothing is stored under the same identity; true when
   * it stored it. What is stored first stays: two writers racing keep one value, never two.
   */
  putIfAbsent(tenant: string, purpose: SecretPurpose, name: string, value: string): boolean;
  /** The decrypted value, or undefined when none is stored. */
  get(tenant: string, purpose: SecretPurpose, name: string): string | undefined;
  /** Removes the value; removing one that is not there succeeds. */
  delete(tenant: string, purpose: SecretPurpose, name: string): void;
}
