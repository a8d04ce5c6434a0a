/**
 * @module Heroku's answers read without trusting them (the vendor kit's WireReader): only the
 * fields the migration uses, each checked for its type, into plain records. A field of the
 * wrong type is a ProviderError naming the answer and the field, never a crash later on.
 */
import { WireReader } from '../../drivers/kit/wire-reader.js';

export interface HerokuAppRecord { id: string; name: string; stack: string | undefined }
export interface HerokuProcessRecord { type: string; command: string; quantity: number }
export interface HerokuBuildpackRecord { ordinal: number; name: string }
export interface HerokuAddonRecord { name: string; service: string; plan: string | undefined; configVars: string[] }
export interface HerokuDomainRecord { hostname: string; kind: string }
export interface HerokuBuildRecord { status: string; sourceUrl: string | undefined; version: string | null; buildpacks: string[] }

export function readApp(body: unknown, where: string): HerokuAppRecord {
  const app = WireReader.of(body, where);
  const stack = app.raw('stack');
  return { id: app.string('id'), name: app.string('name'), stack: stack === null || stack === undefined ? undefined : app.object('stack').string('name') };
}

export function readFormation(items: unknown[], where: string): HerokuProcessRecord[] {
  return items.map((item, index) => {
    const p = WireReader.of(item, `${where}[${index}]`);
    return { type: p.string('type'), command: p.string('command'), quantity: p.number('quantity') };
  });
}

export function readBuildpacks(items: unknown[], where: string): HerokuBuildpackRecord[] {
  return items
    .map((item, index) => {
      const installation = WireReader.of(item, `${where}[${index}]`);
      const buildpack = installation.object('buildpack');
      return { ordinal: installation.number('ordinal'), name: buildpack.stringOrNull('name') ?? buildpack.string('url') };
    })
    .sort((a, b) => a.ordinal - b.ordinal);
}

export function readAddons(items: unknown[], where: string): HerokuAddonRecord[] {
  return items.map((item, index) => {
    const addon = WireReader.of(item, `${where}[${index}]`);
    const plan = addon.raw('plan');
    return {
      name: addon.string('name'),
      service: addon.object('addon_service').string('name'),
      plan: plan === null || plan === undefined ? undefined : addon.object('plan').string('name'),
      configVars: addon.raw('config_vars') === null ? [] : addon.strings('config_vars'),
    };
  });
}

export function readDomains(items: unknown[], where: string): HerokuDomainRecord[] {
  return items.map((item, index) => {
    const domain = WireReader.of(item, `${where}[${index}]`);
    return { hostname: domain.string('hostname'), kind: domain.string('kind') };
  });
}

export function readBuilds(items: unknown[], where: string): HerokuBuildRecord[] {
  return items.map((item, index) => {
    const build = WireReader.of(item, `${where}[${index}]`);
    const blob = build.raw('source_blob');
    const source = blob === null || blob === undefined ? undefined : build.object('source_blob');
    const buildpacks = build.raw('buildpacks');
    return {
      status: build.string('status'),
      sourceUrl: source?.stringOrNull('url') ?? undefined,
      version: source?.stringOrNull('version') ?? null,
      buildpacks: Array.isArray(buildpacks) ? build.array('buildpacks').map((b) => b.stringOrNull('name') ?? b.string('url')) : [],
    };
  });
}

/** An app's config vars as names and string values (Heroku sends null for a var being removed). */
export function readConfigVars(body: unknown, where: string): Record<string, string> {
  const vars = WireReader.of(body, where);
  const out: Record<string, string> = {};
  for (const name of Object.keys(body as object)) {
    const value = vars.stringOrNull(name);
    if (value !== null) out[name] = value;
  }
  return out;
}
