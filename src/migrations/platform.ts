/**
 * @module The contract between a hosting platform cairn moves work from (Heroku, Railway) and
 * the migration runner: list what an API key can see, analyze one app or project into what
 * cairn would create, and read its configuration values at migrate time only.
 *
 * A platform's client never stores or logs the API key; it sends it only to the platform's own
 * API host (`CAIRN_HEROKU_API_URL`, `CAIRN_RAILWAY_API_URL`) through the outbound guard.
 * Its failures are cairn's errors (src/model/errors.ts): a key the platform refuses is a
 * `ValidationError` on `api_key`, an app or project it does not know a `NotFoundError`, its
 * rate limit a `RateLimitedError` with the platform's Retry-After, anything else a
 * `ProviderError` carrying the platform's own message.
 */

/** The platforms cairn migrates from; API.md calls Railway "platform A" and Heroku "platform B". */
export type PlatformId = 'heroku' | 'railway';

export interface PlatformCallOptions {
  readonly signal?: AbortSignal;
}

/** One Railway project or Heroku app as `list` shows it (API.md: `{id, name, services, databases}`). */
export interface PlatformListing {
  readonly id: string;
  readonly name: string;
  /** Names of the services (Railway) or process types (Heroku) it runs. */
  readonly services: readonly string[];
  /** Names of its databases (Railway plugins or database services, Heroku data add-ons). */
  readonly databases: readonly string[];
}

/** One process of the platform's formation or one service's start command. */
export interface PlatformProcess {
  /** `web`, `worker`, … (Heroku process type) or the Railway service's name. */
  readonly type: string;
  readonly command: string;
  readonly quantity: number;
  /** Whether it answers HTTP on `$PORT` (Heroku `web`, a Railway service with a domain or port). */
  readonly web: boolean;
}

/** A platform database that becomes a cairn Database. */
export interface PlatformDatabase {
  /** The cairn Database name to create (a DNS-1123 label derived from the platform's name). */
  readonly name: string;
  readonly type: 'postgresql' | 'mongodb';
  /** What it is on the platform, for messages: `heroku-postgresql:essential-0`, `Postgres`. */
  readonly origin: string;
  /** The config var that holds its connection URL on the platform (`DATABASE_URL`). */
  readonly urlVariable: string;
  readonly version?: string;
}

/** Where the app's code comes from: a git repository cairn can fetch, or the platform's source tarball. */
export type PlatformAppSource =
  | { readonly kind: 'git'; readonly url: string; readonly ref: string }
  | { readonly kind: 'tarball'; readonly url: string };

/** One cairn App the migration creates (Heroku: the app's web process; Railway: one per service with code). */
export interface PlatformApp {
  /** The cairn App name (a DNS-1123 label). */
  readonly name: string;
  /** The platform service or app it comes from, for messages and for `readConfigVars`. */
  readonly origin: string;
  readonly build?: string;
  readonly command: string;
  readonly port: number;
  /** Names of the config vars that move as the App's sealed env (values never leave `readConfigVars`). */
  readonly configVarNames: readonly string[];
  /** Names of the `PlatformDatabase`s it uses, in order (the first becomes `DATABASE_URL`). */
  readonly databases: readonly string[];
  readonly source?: PlatformAppSource;
  readonly healthCheckPath?: string;
  readonly domains: readonly string[];
}

/** An add-on or plugin, and whether cairn can bring it along. */
export interface PlatformAddon {
  readonly name: string;
  /** The add-on service or plugin kind: `heroku-postgresql`, `heroku-redis`, `postgresql`. */
  readonly service: string;
  readonly plan?: string;
  readonly supported: boolean;
}

/** What cairn learned of one app or project: the body of API.md's analyze answer, before manifests. */
export interface PlatformAnalysis {
  readonly platform: PlatformId;
  /** The Heroku app or the Railway project. */
  readonly subject: { readonly id: string; readonly name: string };
  readonly stack?: string;
  readonly buildpacks: readonly string[];
  readonly processes: readonly PlatformProcess[];
  /** Every config var name seen (never values). */
  readonly configVarNames: readonly string[];
  readonly addons: readonly PlatformAddon[];
  readonly databases: readonly PlatformDatabase[];
  readonly apps: readonly PlatformApp[];
  readonly domains: readonly string[];
  /** What cannot move, in words a user acts on (a worker without a port, an add-on cairn has no kind for). */
  readonly warnings: readonly string[];
}

/** A platform cairn migrates from. One instance per cairn process; the API key comes with each call. */
export interface MigrationPlatform {
  readonly id: PlatformId;
  list(apiKey: string, options?: PlatformCallOptions): Promise<PlatformListing[]>;
  /** `subject` is a Heroku app name or id, or a Railway project id. */
  analyze(apiKey: string, subject: string, options?: PlatformCallOptions): Promise<PlatformAnalysis>;
  /**
   * The config var values of one `PlatformApp.origin` of `subject`, database URLs included, read
   * when the migration runs; the caller seals them and never returns them.
   */
  readConfigVars(apiKey: string, subject: string, origin: string, options?: PlatformCallOptions): Promise<Record<string, string>>;
  /** The connection URL of one `PlatformDatabase.name` of `subject`, read when its data is copied. */
  readDatabaseUrl(apiKey: string, subject: string, database: string, options?: PlatformCallOptions): Promise<string>;
}
