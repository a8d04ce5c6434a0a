import { describe, expect, it } from 'vitest';
import { addonUrlVariable, analyzeHerokuApp, type HerokuAppFacts } from './heroku-analysis.js';

function facts(over: Partial<HerokuAppFacts> = {}): HerokuAppFacts {
  return {
    app: { id: '9a1b2c3d-0000-4000-8000-000000000001', name: 'Shop_App', stack: 'heroku-24' },
    formation: [{ type: 'web', command: 'gunicorn app:app', quantity: 1 }],
    buildpacks: ['heroku/python'],
    configVarNames: [],
    addons: [],
    domains: [],
    builds: [{ status: 'succeeded', sourceUrl: 'https://blobs.example.com/src.tgz', version: null, buildpacks: [] }],
    ...over,
  };
}

describe('analyzeHerokuApp', () => {
  it('names the App as a DNS label and keeps Heroku’s name as its origin', () => {
    const app = analyzeHerokuApp(facts()).apps[0]!;
    expect(app).toMatchObject({ name: 'shop-app', origin: 'Shop_App', command: 'gunicorn app:app', port: 8080, build: 'pip install -r requirements.txt' });
  });

  it('puts the database behind DATABASE_URL first and keeps every database var out of the App’s env', () => {
    const analysis = analyzeHerokuApp(facts({
      configVarNames: ['HEROKU_POSTGRESQL_PINK_URL', 'DATABASE_URL', 'SECRET'],
      addons: [
        { name: 'postgresql-pink-1', service: 'heroku-postgresql', plan: 'heroku-postgresql:standard-0', configVars: ['HEROKU_POSTGRESQL_PINK_URL'] },
        { name: 'postgresql-main-2', service: 'heroku-postgresql', plan: 'heroku-postgresql:standard-0', configVars: ['DATABASE_URL', 'HEROKU_POSTGRESQL_RED_URL'] },
      ],
    }));
    expect(analysis.databases.map((d) => [d.name, d.urlVariable])).toEqual([['postgresql-main-2', 'DATABASE_URL'], ['postgresql-pink-1', 'HEROKU_POSTGRESQL_PINK_URL']]);
    expect(analysis.apps[0]!.databases).toEqual(['postgresql-main-2', 'postgresql-pink-1']);
    expect(analysis.apps[0]!.configVarNames).toEqual(['SECRET']);
    expect(analysis.configVarNames).toEqual(['HEROKU_POSTGRESQL_PINK_URL', 'DATABASE_URL', 'SECRET']);
  });

  it('takes the build command from the latest build’s buildpacks when none are installed, and warns of unknown ones', () => {
    const analysis = analyzeHerokuApp(facts({ buildpacks: [], builds: [{ status: 'succeeded', sourceUrl: 'https://b.example.com/s.tgz', version: null, buildpacks: ['heroku/ruby', 'https://github.com/acme/buildpack-thing'] }] }));
    expect(analysis.buildpacks).toEqual(['heroku/ruby', 'https://github.com/acme/buildpack-thing']);
    expect(analysis.apps[0]!.build).toBe('bundle install');
    expect(analysis.warnings).toContain("buildpack https://github.com/acme/buildpack-thing has no cairn build command; add what it does to the App's build by hand");
  });

  it('says when there is no source to deploy, and deploys main of a git source without a version', () => {
    const none = analyzeHerokuApp(facts({ builds: [{ status: 'failed', sourceUrl: 'https://b.example.com/x.tgz', version: null, buildpacks: [] }] }));
    expect(none.apps[0]!.source).toBeUndefined();
    expect(none.warnings).toContain('app "Shop_App" has no succeeded build with source code on Heroku; give the cairn App a git source by hand');
    const git = analyzeHerokuApp(facts({ builds: [{ status: 'succeeded', sourceUrl: 'git@github.com:acme/shop.git', version: null, buildpacks: [] }] }));
    expect(git.apps[0]!.source).toEqual({ kind: 'git', url: 'git@github.com:acme/shop.git', ref: 'main' });
    expect(git.warnings.some((w) => w.includes('cairn deploys its branch main'))).toBe(true);
  });

  it('warns of a Dockerfile app and keeps only custom domains', () => {
    const analysis = analyzeHerokuApp(facts({
      app: { id: 'x', name: 'shop', stack: 'container' },
      domains: [{ hostname: 'shop.herokuapp.com', kind: 'heroku' }, { hostname: 'shop.example', kind: 'custom' }],
    }));
    expect(analysis.domains).toEqual(['shop.example']);
    expect(analysis.apps[0]!.domains).toEqual(['shop.example']);
    expect(analysis.warnings.some((w) => w.includes('stack "container"'))).toBe(true);
  });
});

describe('addonUrlVariable', () => {
  it('prefers DATABASE_URL, then a *_URL or *_URI var, then the first, then the type’s convention', () => {
    const addon = (configVars: string[]) => ({ name: 'a', service: 'heroku-postgresql', plan: undefined, configVars });
    expect(addonUrlVariable(addon(['X', 'DATABASE_URL']), 'postgresql')).toBe('DATABASE_URL');
    expect(addonUrlVariable(addon(['MONGODB_DB', 'MONGODB_URI']), 'mongodb')).toBe('MONGODB_URI');
    expect(addonUrlVariable(addon(['ODD']), 'postgresql')).toBe('ODD');
    expect(addonUrlVariable(addon([]), 'mongodb')).toBe('MONGO_URL');
  });
});
