/**
 * @module `cairn deploy`'s options as the body of `POST /deploy` (API.md "Deploy"): the same
 * request whether it goes to a running cairn or is carried out on the data dir, so both are
 * checked by the one document.
 */
import type { DeployBody } from '../api/deploy-request.js';
import { CliError } from './cli-error.js';

export interface DeployOptions {
  type: string;
  provider: string;
  region?: string;
  size?: string;
  name?: string;
  image?: string;
  on?: string;
  label: string[];
  engine?: string;
  dbVersion?: string;
  storageGb?: string;
  git?: string;
  ref?: string;
  path?: string;
  sourceImage?: string;
  sourcePath?: string;
  build?: string;
  command?: string;
  port?: string;
  env: string[];
  database: string[];
  healthCheck?: string;
}

const TYPES = ['server', 'database', 'app'] as const;

/** `KEY=VALUE` pairs of a repeated option, as an object (`--env A=1 --env B=2`). */
export function keyValues(pairs: readonly string[], option: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new CliError(`${option} takes KEY=VALUE, got "${pair}"`);
    result[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return result;
}

function wholeNumber(text: string | undefined, option: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text)) throw new CliError(`${option} must be a whole number, got "${text}"`);
  return Number(text);
}

function appSource(o: DeployOptions): DeployBody['source'] {
  const given = [o.git, o.sourceImage, o.sourcePath].filter((s) => s !== undefined).length;
  if (given > 1) throw new CliError('an app takes one source: --git URL [--ref REF] [--path DIR], --source-image IMAGE or --source-path DIR');
  if (o.git !== undefined) return { git: { url: o.git, ...(o.ref !== undefined ? { ref: o.ref } : {}), ...(o.path !== undefined ? { path: o.path } : {}) } };
  if (o.ref !== undefined || o.path !== undefined) throw new CliError('--ref and --path go with --git URL');
  if (o.sourceImage !== undefined) return { image: o.sourceImage };
  if (o.sourcePath !== undefined) return { path: o.sourcePath };
  return undefined;
}

/** The `POST /deploy` body of these options; what the options cannot say alone is left to the API document's check. */
export function deployBody(o: DeployOptions): DeployBody {
  if (!(TYPES as readonly string[]).includes(o.type)) throw new CliError(`--type must be one of ${TYPES.join(', ')}, got "${o.type}"`);
  const type = o.type as DeployBody['type'];
  const forOther = (option: string, value: unknown, types: readonly string[]): void => {
    if (value !== undefined && !types.includes(type)) throw new CliError(`${option} is for --type ${types.join(' or ')}, not ${type}`);
  };
  forOther('--engine', o.engine, ['database']);
  forOther('--db-version', o.dbVersion, ['database']);
  forOther('--storage-gb', o.storageGb, ['database']);
  for (const [option, value] of [['--git', o.git], ['--source-image', o.sourceImage], ['--source-path', o.sourcePath], ['--build', o.build], ['--command', o.command], ['--port', o.port], ['--health-check', o.healthCheck]] as const) forOther(option, value, ['app']);
  if (o.env.length > 0) forOther('--env', o.env, ['app']);
  if (o.database.length > 0) forOther('--database', o.database, ['app']);
  forOther('--on', o.on, ['database', 'app']);
  const labels = keyValues(o.label, '--label');
  const env = keyValues(o.env, '--env');
  const source = appSource(o);
  const storage = wholeNumber(o.storageGb, '--storage-gb');
  const port = wholeNumber(o.port, '--port');
  return {
    type, provider: o.provider,
    ...(o.region !== undefined ? { region: o.region } : {}),
    ...(o.size !== undefined ? { size: o.size } : {}),
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.image !== undefined ? { image: o.image } : {}),
    ...(o.on !== undefined ? { server_id: o.on } : {}),
    ...(Object.keys(labels).length > 0 ? { labels } : {}),
    ...(o.engine !== undefined ? { engine: o.engine as 'postgresql' | 'mongodb' } : {}),
    ...(o.dbVersion !== undefined ? { version: o.dbVersion } : {}),
    ...(storage !== undefined ? { storage_gb: storage } : {}),
    ...(source !== undefined ? { source } : {}),
    ...(o.build !== undefined ? { build: o.build } : {}),
    ...(o.command !== undefined ? { command: o.command } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(Object.keys(env).length > 0 ? { env } : {}),
    ...(o.database.length > 0 ? { database_ids: o.database } : {}),
    ...(o.healthCheck !== undefined ? { health_check_path: o.healthCheck } : {}),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Finds the id of a Server or Database by name (in the data dir, or through the API). */
export type IdByName = (kind: 'Server' | 'Database', name: string) => Promise<string | undefined>;

/** The body with the `--on` server and `--database`s given by name turned into the ids `POST /deploy` takes. */
export async function withIds(body: DeployBody, idOf: IdByName): Promise<DeployBody> {
  const resolve = async (kind: 'Server' | 'Database', ref: string, option: string): Promise<string> => {
    if (UUID.test(ref)) return ref;
    const id = await idOf(kind, ref);
    if (id === undefined) throw new CliError(`${option}: there is no ${kind} named "${ref}" (in the namespace default)`);
    return id;
  };
  return {
    ...body,
    ...(body.server_id !== undefined ? { server_id: await resolve('Server', body.server_id, '--on') } : {}),
    ...(body.database_ids !== undefined ? { database_ids: await Promise.all(body.database_ids.map((d) => resolve('Database', d, '--database'))) } : {}),
  };
}
