/**
 * @module Buildpack-style detection: the build and start commands of an App that gives no
 * `command`, read from its source tree the way the usual platforms do. A Procfile `web:` line
 * is the start command whatever the language. Node.js (package.json): `npm ci` (`npm install`
 * without a lockfile) then `npm run build --if-present`, started by `npm start`. Python
 * (requirements.txt or pyproject.toml): a virtualenv `.venv` with the dependencies installed,
 * started only by a Procfile `web:` line (there is no usual start command). Go (go.mod):
 * `go build -o app .`, started as `./app`. A static site (index.html): served from its folder
 * by Python's `http.server` on `$PORT`. A given `build` is kept. Used by the local and the SSH
 * runtimes; what cannot be detected is refused saying what was looked for.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type DetectedLanguage = 'node' | 'python' | 'go' | 'static';

export interface BuildPlan {
  build: string | null;
  command: string;
  /** What was detected, for the log; undefined when the App gave its own command. */
  detected?: DetectedLanguage | 'procfile';
}

export class BuildDetectionError extends Error {
  override readonly name = 'BuildDetectionError';
}

export interface DetectOptions {
  /** The Python 3 the app's host runs static sites with; null when it has none. */
  python: string | null;
}

/** The command a Procfile's `web:` line gives, if there is one. */
export function procfileWeb(dir: string): string | undefined {
  const file = join(dir, 'Procfile');
  if (!existsSync(file)) return undefined;
  const line = readFileSync(file, 'utf8').split(/\r?\n/).find((l) => /^web\s*:/.test(l));
  const command = line?.replace(/^web\s*:/, '').trim();
  return command === '' ? undefined : command;
}

function languageOf(dir: string): DetectedLanguage | undefined {
  if (existsSync(join(dir, 'package.json'))) return 'node';
  if (existsSync(join(dir, 'requirements.txt')) || existsSync(join(dir, 'pyproject.toml'))) return 'python';
  if (existsSync(join(dir, 'go.mod'))) return 'go';
  if (existsSync(join(dir, 'index.html'))) return 'static';
  return undefined;
}

const VENV_PATH = 'PATH="$PWD/.venv/bin:$PATH"';

function detectedBuild(dir: string, language: DetectedLanguage): string | null {
  switch (language) {
    case 'node': {
      const locked = existsSync(join(dir, 'package-lock.json')) || existsSync(join(dir, 'npm-shrinkwrap.json'));
      return `${locked ? 'npm ci' : 'npm install'} && npm run build --if-present`;
    }
    case 'python': {
      const install = existsSync(join(dir, 'requirements.txt')) ? '.venv/bin/pip install -r requirements.txt' : '.venv/bin/pip install .';
      return `python3 -m venv .venv && ${install}`;
    }
    case 'go':
      return 'go build -o app .';
    case 'static':
      return null;
  }
}

/**
 * The build and start commands of an App whose source is in `dir`. With a `command` given,
 * nothing is detected: the App's own build and command are the plan.
 */
export function planBuild(appName: string, dir: string, given: { build: string | null; command: string | null }, options: DetectOptions): BuildPlan {
  if (given.command !== null) return { build: given.build, command: given.command };
  const language = languageOf(dir);
  const web = procfileWeb(dir);
  const build = given.build ?? (language ? detectedBuild(dir, language) : null);
  if (web !== undefined) return { build, command: language === 'python' ? `${VENV_PATH} ${web}` : web, detected: 'procfile' };
  switch (language) {
    case 'node':
      return { build, command: 'npm start', detected: 'node' };
    case 'go':
      return { build, command: './app', detected: 'go' };
    case 'python':
      throw new BuildDetectionError(
        `App/${appName}: a Python app (requirements.txt or pyproject.toml) has no usual start command: add a Procfile with a "web: ..." line (e.g. "web: gunicorn app:app --bind 127.0.0.1:$PORT") or set spec.command`,
      );
    case 'static':
      if (options.python === null) {
        throw new BuildDetectionError(`App/${appName}: a static site (index.html) is served with Python 3's http.server, and the host has no python3; install it or set spec.command`);
      }
      return { build, command: `exec ${options.python} -m http.server "$PORT" --bind 127.0.0.1`, detected: 'static' };
    case undefined:
      if (existsSync(join(dir, 'Dockerfile'))) {
        throw new BuildDetectionError(
          `App/${appName}: the source is a Dockerfile, and cairn does not build container images: build and push the image elsewhere and deploy it as spec.source.image (on a server with docker or podman), or give the App a command (spec.command, or a Procfile "web:" line)`,
        );
      }
      throw new BuildDetectionError(
        `App/${appName}: no spec.command, and none could be detected: the source has no Procfile "web:" line, package.json, requirements.txt, pyproject.toml, go.mod or index.html`,
      );
  }
}
