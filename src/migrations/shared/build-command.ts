/**
 * @module A Heroku app's buildpacks as the build command cairn runs in the app's checkout
 * (the local and SSH runtimes run `build` with `/bin/sh -c` before starting the app). A
 * buildpack is known by its registry name (`heroku/nodejs`) or by the URL of Heroku's own
 * repository or registry tarball for it; a buildpack cairn has no command for is named back so
 * the analysis can warn about it instead of guessing.
 */

/** What each official Heroku buildpack does at build time, as one shell command. */
const BUILD_COMMANDS: Readonly<Record<string, string>> = {
  'heroku/nodejs': 'npm ci && npm run build --if-present',
  'heroku/python': 'pip install -r requirements.txt',
  'heroku/go': 'go build -o bin/ ./...',
  'heroku/ruby': 'bundle install',
  'heroku/php': 'composer install --no-dev',
  'heroku/java': 'mvn -DskipTests package',
  'heroku/gradle': './gradlew build -x test',
  'heroku/scala': 'sbt compile stage',
  'heroku/clojure': 'lein uberjar',
};

/** Buildpacks that prepare the environment rather than build the code: nothing to run in a checkout. */
const NO_BUILD_STEP: ReadonlySet<string> = new Set(['heroku/procfile', 'heroku/metrics-agent']);

/** `https://github.com/heroku/heroku-buildpack-nodejs(.git)`, a registry tarball URL, or `heroku/nodejs` → `heroku/nodejs`. */
export function buildpackName(nameOrUrl: string): string {
  const text = nameOrUrl.trim();
  const repo = /^https?:\/\/github\.com\/heroku\/heroku-buildpack-([a-z0-9-]+?)(?:\.git)?\/?(?:#.*)?$/i.exec(text);
  if (repo) return `heroku/${repo[1]!.toLowerCase()}`;
  const registry = /\/buildpacks\/heroku\/([a-z0-9-]+)\.tgz$/i.exec(text);
  if (registry) return `heroku/${registry[1]!.toLowerCase()}`;
  return text;
}

export interface BuildPlan {
  /** The commands of the known buildpacks in their order, joined with `&&`; undefined when none builds. */
  command: string | undefined;
  /** Buildpacks cairn has no build command for, as given. */
  unknown: string[];
}

/** The build command of `buildpacks`, in the order Heroku runs them. */
export function buildCommandFor(buildpacks: readonly string[]): BuildPlan {
  const commands: string[] = [];
  const unknown: string[] = [];
  for (const given of buildpacks) {
    const name = buildpackName(given);
    const command = BUILD_COMMANDS[name];
    if (command !== undefined) {
      if (!commands.includes(command)) commands.push(command);
    } else if (!NO_BUILD_STEP.has(name)) {
      unknown.push(given);
    }
  }
  return { command: commands.length === 0 ? undefined : commands.join(' && '), unknown };
}
