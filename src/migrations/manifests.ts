/**
 * @module The cairn manifests a platform analysis becomes: one Database per platform database
 * and one App per platform app, on a target Server, each checked against the kind's schema
 * before it is returned. Config var values never appear here: a migration seals them and names
 * them with the App's `cairn.dev/sealed-env` annotation (see src/migrations/sealed-env.ts).
 */
import { stringify } from 'yaml';
import type { AnyManifest } from '../model/resource.js';
import { validateManifest } from '../model/schema-validator.js';
import type { PlatformAnalysis, PlatformApp, PlatformDatabase } from './platform.js';
import { SEALED_ENV_ANNOTATION } from './sealed-env.js';

export { SEALED_ENV_ANNOTATION };

/** What stands for the Server when the caller named none (a valid name, so the manifests validate). */
export const PLACEHOLDER_SERVER = 'your-server';

/** The engine version a database gets when the platform does not say. */
const DEFAULT_VERSIONS: Record<PlatformDatabase['type'], string> = { postgresql: '16', mongodb: '7' };

/** Where an App's code comes from once the migration has it: git as given, or a directory the migration unpacked. */
export type AppSourceOverride = { readonly path: string };

export interface ManifestOptions {
  /** The Server's name; without one the manifests name PLACEHOLDER_SERVER and a warning says so. */
  readonly server?: string;
  /** The directory each App's tarball was unpacked into, by App name (migrate time). */
  readonly sourcePaths?: Readonly<Record<string, string>>;
  /** The `cairn.dev/sealed-env` annotation value each App gets (the migration's id), when its env is sealed. */
  readonly sealedEnv?: string;
  /** The engine version a database gets when the platform does not say (what the target server runs). */
  readonly defaultVersions?: Partial<Record<PlatformDatabase['type'], string>>;
}

export interface MigrationManifests {
  readonly manifests: AnyManifest[];
  /** The same, as multi-document YAML a user can commit to git. */
  readonly yaml: string;
  readonly warnings: string[];
}

/** Thrown when what the analysis says cannot make a valid manifest (a bad name from the platform). */
export class MigrationManifestError extends Error {
  override readonly name = 'MigrationManifestError';
}

function databaseManifest(db: PlatformDatabase, server: string, defaults: ManifestOptions['defaultVersions'] = {}): AnyManifest {
  return {
    apiVersion: 'cairn.dev/v1',
    kind: 'Database',
    metadata: { name: db.name },
    spec: { server, type: db.type, version: db.version ?? defaults[db.type] ?? DEFAULT_VERSIONS[db.type] },
  };
}

function appSource(app: PlatformApp, options: ManifestOptions, warnings: string[]): Record<string, unknown> {
  const unpacked = options.sourcePaths?.[app.name];
  if (unpacked !== undefined) return { path: unpacked };
  if (app.source?.kind === 'git') return { git: { url: app.source.url, ref: app.source.ref } };
  if (app.source?.kind === 'tarball') {
    warnings.push(`App/${app.name}: its code is the platform's source tarball; a migration unpacks it on cairn's host and sets spec.source.path to that directory`);
  } else {
    warnings.push(`App/${app.name}: the platform gives no source for ${app.origin}; set spec.source (git url and ref) before applying`);
  }
  return { path: `./${app.name}` };
}

function appManifest(app: PlatformApp, server: string, options: ManifestOptions, warnings: string[]): AnyManifest {
  const spec: Record<string, unknown> = { server, source: appSource(app, options, warnings) };
  if (app.build !== undefined && app.build !== '') spec.build = app.build;
  spec.command = app.command;
  spec.port = app.port;
  if (app.databases.length > 0) spec.databases = [...app.databases];
  if (app.healthCheckPath !== undefined) spec.healthCheck = { path: app.healthCheckPath };
  const metadata: { name: string; annotations?: Record<string, string> } = { name: app.name };
  if (options.sealedEnv !== undefined && app.configVarNames.length > 0) metadata.annotations = { [SEALED_ENV_ANNOTATION]: options.sealedEnv };
  // Checked against the App schema by manifestsFromAnalysis before anyone sees it.
  return { apiVersion: 'cairn.dev/v1', kind: 'App', metadata, spec } as unknown as AnyManifest;
}

/** The manifests of `analysis` on `options.server`, each valid against its schema. */
export function manifestsFromAnalysis(analysis: PlatformAnalysis, options: ManifestOptions = {}): MigrationManifests {
  const warnings: string[] = [];
  const server = options.server ?? PLACEHOLDER_SERVER;
  if (options.server === undefined) warnings.push(`no server was named: the manifests say spec.server: ${PLACEHOLDER_SERVER}; replace it with your Server's name`);
  const manifests = [
    ...analysis.databases.map((db) => databaseManifest(db, server, options.defaultVersions)),
    ...analysis.apps.map((app) => appManifest(app, server, options, warnings)),
  ];
  for (const manifest of manifests) {
    const validation = validateManifest(manifest);
    if (!validation.valid) {
      const issues = validation.issues.map((i) => `${i.pointer || '/'}: ${i.message}`).join('; ');
      throw new MigrationManifestError(`${manifest.kind}/${manifest.metadata.name} from ${analysis.platform} ${analysis.subject.name} is not a valid manifest: ${issues}`);
    }
  }
  const yaml = manifests.map((m) => stringify(m)).join('---\n');
  return { manifests, yaml, warnings };
}
