/**
 * @module The platforms cairn migrates from, made once per cairn process from its settings:
 * `CAIRN_HEROKU_API_URL` (default https://api.heroku.com) and `CAIRN_RAILWAY_API_URL` (default
 * https://backboard.railway.com, below which Railway's API is `/graphql/v2`), each an http(s)
 * URL without credentials (src/net/url-setting.ts), and `CAIRN_GITHUB_URL` (default
 * https://github.com, the setting GitHub sign-in reads too), where a Railway service's
 * `owner/repo` is cloned from. A setting that is set but unusable is refused here, naming it,
 * before any API key is sent anywhere. The API hosts are the operator's, never a user's: a
 * migration request carries an API key and a subject, no URL.
 */
import { httpUrlSetting } from '../net/url-setting.js';
import { createHerokuPlatform } from './heroku/heroku-platform.js';
import type { MigrationPlatform } from './platform.js';
import { createRailwayPlatform } from './railway/railway-platform.js';

export const HEROKU_API_URL_SETTING = 'CAIRN_HEROKU_API_URL';
export const RAILWAY_API_URL_SETTING = 'CAIRN_RAILWAY_API_URL';
export const GITHUB_URL_SETTING = 'CAIRN_GITHUB_URL';

export const DEFAULT_HEROKU_API_URL = 'https://api.heroku.com';
export const DEFAULT_RAILWAY_API_URL = 'https://backboard.railway.com';
export const DEFAULT_GITHUB_URL = 'https://github.com';

export interface MigrationPlatforms {
  heroku: MigrationPlatform;
  railway: MigrationPlatform;
}

/** The setting as a URL string without a trailing slash; throws UrlSettingError naming it when unusable. */
function urlOf(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  return httpUrlSetting(env, name, fallback)!.toString().replace(/\/+$/, '');
}

export function createMigrationPlatforms(env: NodeJS.ProcessEnv = process.env): MigrationPlatforms {
  const herokuUrl = urlOf(env, HEROKU_API_URL_SETTING, DEFAULT_HEROKU_API_URL);
  const railwayUrl = urlOf(env, RAILWAY_API_URL_SETTING, DEFAULT_RAILWAY_API_URL);
  const githubUrl = urlOf(env, GITHUB_URL_SETTING, DEFAULT_GITHUB_URL);
  return {
    heroku: createHerokuPlatform({ baseUrl: herokuUrl }),
    railway: createRailwayPlatform({ baseUrl: railwayUrl, githubUrl }),
  };
}
