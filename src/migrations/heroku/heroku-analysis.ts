/**
 * @module What cairn makes of one Heroku app (pure: Heroku's records in, PlatformAnalysis out).
 *
 * - The `web` process of the formation becomes the one cairn App: its command as Heroku runs
 *   it, port 8080 (cairn's runtimes also set `PORT`, which Heroku apps read), the build command
 *   of its buildpacks (installed ones, else those of its latest build), its custom domains.
 *   Every other process type is a warning: it has no port, and cairn runs web processes only.
 * - Data add-ons cairn has a kind for (heroku-postgresql, the MongoDB add-ons) become
 *   Databases named after the add-on; their config vars (`DATABASE_URL`, …) are the database's
 *   `urlVariable` and do not move with the App's env, since cairn injects the new database's
 *   URL. Every other add-on is `supported: false` and a warning naming it and its config vars.
 * - The code comes from the latest succeeded build's `source_blob`: an http(s) URL is the
 *   gzipped tarball Heroku built from (`{kind: 'tarball'}`; Heroku signs these URLs for a
 *   while, so the runner reads it at migrate time); a git URL (`*.git`, `git://`, `git@`)
 *   becomes `{kind: 'git'}` at the blob's `version` (a commit or branch; `main` when none is
 *   given, with a warning). No succeeded build: no source, and a warning.
 */
import type { PlatformAddon, PlatformAnalysis, PlatformApp, PlatformAppSource, PlatformDatabase, PlatformListing, PlatformProcess } from '../platform.js';
import { buildCommandFor } from '../shared/build-command.js';
import { herokuAddonDatabaseType, URL_VARIABLE, type CairnDatabaseType } from '../shared/database-kinds.js';
import { dnsLabel } from '../shared/dns-label.js';
import type { HerokuAddonRecord, HerokuAppRecord, HerokuBuildRecord, HerokuDomainRecord, HerokuProcessRecord } from './heroku-wire.js';

/** The port a migrated Heroku app listens on; cairn's runtimes hand it to the app as `PORT`. */
export const HEROKU_APP_PORT = 8080;

export interface HerokuAppFacts {
  app: HerokuAppRecord;
  formation: HerokuProcessRecord[];
  /** Installed buildpacks, in Heroku's order. */
  buildpacks: string[];
  configVarNames: string[];
  addons: HerokuAddonRecord[];
  domains: HerokuDomainRecord[];
  /** Builds, newest first (only the first succeeded one is used). */
  builds: HerokuBuildRecord[];
}

/** The config var that carries a database add-on's URL: DATABASE_URL when it sets it, else its first `*_URL`/`*_URI`. */
export function addonUrlVariable(addon: HerokuAddonRecord, type: CairnDatabaseType): string {
  if (addon.configVars.includes('DATABASE_URL')) return 'DATABASE_URL';
  return addon.configVars.find((name) => /_UR[LI]$/.test(name)) ?? addon.configVars[0] ?? URL_VARIABLE[type];
}

/** The Database an add-on becomes, or undefined when cairn has no kind for it. */
export function addonDatabase(addon: HerokuAddonRecord): PlatformDatabase | undefined {
  const type = herokuAddonDatabaseType(addon.service);
  if (type === undefined) return undefined;
  return { name: dnsLabel(addon.name, 'database'), type, origin: addon.plan ?? addon.service, urlVariable: addonUrlVariable(addon, type) };
}

function sourceOf(build: HerokuBuildRecord | undefined, warnings: string[], appName: string): PlatformAppSource | undefined {
  const url = build?.sourceUrl;
  if (build === undefined || url === undefined) {
    warnings.push(`app "${appName}" has no succeeded build with source code on Heroku; give the cairn App a git source by hand`);
    return undefined;
  }
  if (/\.git\/?$/.test(url) || url.startsWith('git://') || url.startsWith('git@')) {
    if (build.version === null) warnings.push(`the latest build of "${appName}" names no version of ${url}; cairn deploys its branch main`);
    return { kind: 'git', url, ref: build.version ?? 'main' };
  }
  if (/^https?:\/\//.test(url)) return { kind: 'tarball', url };
  warnings.push(`the latest build of "${appName}" came from a source cairn cannot fetch; give the cairn App a git source by hand`);
  return undefined;
}

export function analyzeHerokuApp(facts: HerokuAppFacts): PlatformAnalysis {
  const { app } = facts;
  const warnings: string[] = [];
  const processes: PlatformProcess[] = facts.formation.map((p) => ({ type: p.type, command: p.command, quantity: p.quantity, web: p.type === 'web' }));
  for (const p of processes.filter((q) => !q.web)) {
    warnings.push(`process type "${p.type}" (${p.command}) has no port; cairn runs web processes only, so it does not move`);
  }

  const addons: PlatformAddon[] = [];
  const databases: PlatformDatabase[] = [];
  const databaseVars = new Set<string>();
  for (const addon of facts.addons) {
    const database = addonDatabase(addon);
    addons.push({ name: addon.name, service: addon.service, ...(addon.plan === undefined ? {} : { plan: addon.plan }), supported: database !== undefined });
    if (database) {
      databases.push(database);
      for (const name of addon.configVars) databaseVars.add(name);
    } else {
      const vars = addon.configVars.length === 0 ? '' : `; ${addon.configVars.join(', ')} keep pointing at it on Heroku`;
      warnings.push(`add-on "${addon.name}" (${addon.plan ?? addon.service}) has no cairn equivalent and does not move${vars}`);
    }
  }
  // The database behind DATABASE_URL comes first: the App's first database becomes its DATABASE_URL.
  databases.sort((a, b) => Number(b.urlVariable === 'DATABASE_URL') - Number(a.urlVariable === 'DATABASE_URL'));

  const buildpacks = facts.buildpacks.length > 0 ? facts.buildpacks : (facts.builds.find((b) => b.status === 'succeeded')?.buildpacks ?? []);
  const plan = buildCommandFor(buildpacks);
  for (const unknown of plan.unknown) warnings.push(`buildpack ${unknown} has no cairn build command; add what it does to the App's build by hand`);
  if (app.stack === 'container') warnings.push(`app "${app.name}" is built from a Dockerfile (stack "container"); cairn does not build images, so give the App an image or a build command`);

  const domains = facts.domains.filter((d) => d.kind === 'custom').map((d) => d.hostname);
  const web = processes.find((p) => p.web);
  const apps: PlatformApp[] = [];
  if (web) {
    const source = sourceOf(facts.builds.find((b) => b.status === 'succeeded'), warnings, app.name);
    apps.push({
      name: dnsLabel(app.name),
      origin: app.name,
      ...(plan.command === undefined ? {} : { build: plan.command }),
      command: web.command,
      port: HEROKU_APP_PORT,
      configVarNames: facts.configVarNames.filter((name) => !databaseVars.has(name)),
      databases: databases.map((d) => d.name),
      ...(source === undefined ? {} : { source }),
      domains,
    });
  } else {
    warnings.push(`app "${app.name}" has no web process; cairn runs web processes only, so no App is created`);
  }

  return {
    platform: 'heroku',
    subject: { id: app.id, name: app.name },
    ...(app.stack === undefined ? {} : { stack: app.stack }),
    buildpacks,
    processes,
    configVarNames: facts.configVarNames,
    addons,
    databases,
    apps,
    domains,
    warnings,
  };
}

/** One app as `list` shows it: its process types and the databases cairn would create. */
export function herokuListing(app: HerokuAppRecord, formation: HerokuProcessRecord[], addons: HerokuAddonRecord[]): PlatformListing {
  return {
    id: app.id,
    name: app.name,
    services: formation.map((p) => p.type),
    databases: addons.flatMap((a) => addonDatabase(a)?.name ?? []),
  };
}
