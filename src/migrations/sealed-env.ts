/**
 * @module An App's sealed environment: config var values a migration brought from a platform,
 * kept encrypted in the secrets store (purpose `app-env`) instead of in the App's spec, and named
 * by the App's `cairn.dev/sealed-env` annotation (the migration's id). The App reconciler merges
 * them under `spec.env` when it builds what it deploys; nothing else ever reads them back.
 */
import type { SecretStore } from '../secrets/secret-store.js';

export const SEALED_ENV_ANNOTATION = 'cairn.dev/sealed-env';
export const APP_ENV_PURPOSE = 'app-env';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The sealed env is missing or unreadable; the App cannot be deployed as the migration meant. */
export class SealedEnvError extends Error {
  override readonly name = 'SealedEnvError';
}

function secretName(reference: string, appName: string): string {
  return `${reference}/${appName}`;
}

/** Seals `env` for App `appName` under `reference`; names must be valid environment variable names. */
export function sealEnv(secrets: SecretStore, tenant: string, reference: string, appName: string, env: Readonly<Record<string, string>>): void {
  const bad = Object.keys(env).filter((name) => !ENV_NAME.test(name));
  if (bad.length > 0) throw new SealedEnvError(`App/${appName}: ${bad.map((n) => JSON.stringify(n)).join(', ')} cannot be environment variable names`);
  secrets.put(tenant, APP_ENV_PURPOSE, secretName(reference, appName), JSON.stringify(env));
}

/** Removes the sealed env of App `appName` under `reference` (nothing there is fine). */
export function forgetSealedEnv(secrets: SecretStore, tenant: string, reference: string, appName: string): void {
  secrets.delete(tenant, APP_ENV_PURPOSE, secretName(reference, appName));
}

/** The sealed env an App's annotation names, or {} when it names none. */
export function sealedEnvOf(
  secrets: SecretStore,
  app: { tenant: string; name: string; annotations: Readonly<Record<string, string>> },
): Record<string, string> {
  const reference = app.annotations[SEALED_ENV_ANNOTATION];
  if (reference === undefined || reference === '') return {};
  const text = secrets.get(app.tenant, APP_ENV_PURPOSE, secretName(reference, app.name));
  if (text === undefined) {
    throw new SealedEnvError(`App/${app.name}: its ${SEALED_ENV_ANNOTATION} annotation names ${reference}, which holds no sealed environment for this app; remove the annotation or run the migration again`);
  }
  const parsed = JSON.parse(text) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
    throw new SealedEnvError(`App/${app.name}: the sealed environment ${reference} is not a map of strings`);
  }
  return parsed as Record<string, string>;
}
