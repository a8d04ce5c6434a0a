/**
 * @module Heroku as a platform cairn migrates from (platform.ts's MigrationPlatform): `list`
 * reads `GET /apps` (paged) and each app's formation and add-ons; `analyze` reads one app (by
 * name or id), its formation, buildpack installations, config vars (only their names leave
 * this module), add-ons, domains and builds (newest first, until a succeeded one) and hands
 * them to heroku-analysis.ts; `readConfigVars` and `readDatabaseUrl` read the values at
 * migrate time. Reads only: the Heroku app is never changed.
 */
import { NotFoundError, ProviderError, ValidationError } from '../../model/errors.js';
import type { MigrationPlatform, PlatformAnalysis, PlatformCallOptions, PlatformListing } from '../platform.js';
import { checkedApiKey } from '../shared/platform-errors.js';
import { addonDatabase, analyzeHerokuApp, herokuListing } from './heroku-analysis.js';
import { HerokuApi, type HerokuApiOptions } from './heroku-api.js';
import { readAddons, readApp, readBuildpacks, readBuilds, readConfigVars, readDomains, readFormation } from './heroku-wire.js';

/** Heroku's app names (its document's pattern) and ids. */
const APP_NAME = /^[a-z][a-z0-9-]{1,28}[a-z0-9]$/;
const APP_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `subject` as its path below the API, refused (on `app_name`) unless it is an app name or id. */
function appPath(subject: string): string {
  const app = subject.trim();
  if (!APP_NAME.test(app) && !APP_ID.test(app)) {
    const message = `"${app.slice(0, 64)}" is neither a Heroku app name (3 to 30 lower-case letters, digits and dashes, starting with a letter) nor an app id`;
    throw new ValidationError(`app_name: ${message}`, [{ pointer: '/app_name', message }]);
  }
  return `/apps/${app}`;
}

export function createHerokuPlatform(options: HerokuApiOptions): MigrationPlatform {
  const api = (apiKey: string): HerokuApi => new HerokuApi(checkedApiKey('Heroku', apiKey), options);

  const readVars = async (client: HerokuApi, subject: string, what: string, signal?: AbortSignal): Promise<Record<string, string>> => {
    const path = `${appPath(subject)}/config-vars`;
    return readConfigVars(await client.object(path, `read the config vars of ${what}`, what, signal), `heroku: ${path}`);
  };

  return {
    id: 'heroku',

    async list(apiKey: string, callOptions: PlatformCallOptions = {}): Promise<PlatformListing[]> {
      const client = api(apiKey);
      const { signal } = callOptions;
      const apps = (await client.list('/apps', 'list apps', 'apps', { signal, range: { field: 'name' } })).map((body, i) => readApp(body, `heroku: /apps[${i}]`));
      const listings: PlatformListing[] = [];
      for (const app of apps) {
        const what = `app "${app.name}"`;
        const formation = readFormation(await client.list(`${appPath(app.id)}/formation`, `read the formation of ${what}`, what, { signal }), `heroku: ${what} formation`);
        const addons = readAddons(await client.list(`${appPath(app.id)}/addons`, `read the add-ons of ${what}`, what, { signal }), `heroku: ${what} add-ons`);
        listings.push(herokuListing(app, formation, addons));
      }
      return listings;
    },

    async analyze(apiKey: string, subject: string, callOptions: PlatformCallOptions = {}): Promise<PlatformAnalysis> {
      const base = appPath(subject);
      const client = api(apiKey);
      const { signal } = callOptions;
      const what = `app "${subject}"`;
      const app = readApp(await client.object(base, `read ${what}`, what, signal), `heroku: ${what}`);
      const formation = readFormation(await client.list(`${base}/formation`, `read the formation of ${what}`, what, { signal }), `heroku: ${what} formation`);
      const buildpacks = readBuildpacks(await client.list(`${base}/buildpack-installations`, `read the buildpacks of ${what}`, what, { signal }), `heroku: ${what} buildpacks`);
      const configVarNames = Object.keys(await readVars(client, subject, what, signal));
      const addons = readAddons(await client.list(`${base}/addons`, `read the add-ons of ${what}`, what, { signal }), `heroku: ${what} add-ons`);
      const domains = readDomains(await client.list(`${base}/domains`, `read the domains of ${what}`, what, { signal }), `heroku: ${what} domains`);
      const builds = readBuilds(
        await client.list(`${base}/builds`, `read the builds of ${what}`, what, {
          signal,
          range: { field: 'started_at', order: 'desc' },
          enough: (items) => items.some((b) => (b as { status?: unknown }).status === 'succeeded'),
        }),
        `heroku: ${what} builds`,
      );
      return analyzeHerokuApp({ app, formation, buildpacks: buildpacks.map((b) => b.name), configVarNames, addons, domains, builds });
    },

    async readConfigVars(apiKey: string, subject: string, origin: string, callOptions: PlatformCallOptions = {}): Promise<Record<string, string>> {
      const client = api(apiKey);
      const what = `app "${subject}"`;
      const app = readApp(await client.object(appPath(subject), `read ${what}`, what, callOptions.signal), `heroku: ${what}`);
      if (origin !== app.name && origin !== app.id) throw new NotFoundError(`Heroku app "${app.name}" is not "${origin}": a Heroku app moves as one cairn App, whose origin is the app's name`);
      return readVars(client, app.id, what, callOptions.signal);
    },

    async readDatabaseUrl(apiKey: string, subject: string, database: string, callOptions: PlatformCallOptions = {}): Promise<string> {
      const client = api(apiKey);
      const what = `app "${subject}"`;
      const addons = readAddons(await client.list(`${appPath(subject)}/addons`, `read the add-ons of ${what}`, what, { signal: callOptions.signal }), `heroku: ${what} add-ons`);
      const found = addons.map((addon) => addonDatabase(addon)).find((d) => d?.name === database);
      if (!found) throw new NotFoundError(`Heroku ${what} has no database add-on that becomes "${database}"`);
      const url = (await readVars(client, subject, what, callOptions.signal))[found.urlVariable];
      if (url === undefined || url === '') throw new ProviderError(`Heroku ${what} has no ${found.urlVariable} config var for its add-on behind "${database}"`);
      return url;
    },
  };
}
