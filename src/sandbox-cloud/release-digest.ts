/**
 * @module The sandbox's fingerprint of an app release: sha256 over the canonical JSON (keys
 * sorted) of the fields that make a deploy, so the same configuration always gives the same digest.
 */
import { createHash } from 'node:crypto';

/** The deploy-relevant configuration of an app, in the vendor's snake_case. */
export interface AppReleaseConfig {
  source: Record<string, unknown>;
  build: string | null;
  command: string | null;
  port: number | null;
  /** Keys and the SHA-256 digest of each value (env-digest.ts); the sandbox never keeps a value. */
  env: Record<string, string>;
  health_check_path: string | null;
}

/** JSON with object keys sorted at every depth; arrays keep their order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function releaseDigest(config: AppReleaseConfig): string {
  return `sha256:${createHash('sha256').update(canonicalJson(config)).digest('hex')}`;
}
