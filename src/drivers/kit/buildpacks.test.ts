/** @module Buildpack-style detection per language, in temporary source trees. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BuildDetectionError, planBuild } from './buildpacks.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-buildpacks-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const none = { build: null, command: null };
const withPython = { python: '/usr/bin/python3' };

describe('planBuild', () => {
  it('keeps the App\'s own build and command, detecting nothing', () => {
    expect(planBuild('a', tree({ 'package.json': '{}' }), { build: 'make', command: 'node x.js' }, withPython)).toEqual({ build: 'make', command: 'node x.js' });
  });

  it('builds Node.js with npm ci (npm install without a lockfile) and starts it with npm start', () => {
    expect(planBuild('a', tree({ 'package.json': '{}', 'package-lock.json': '{}' }), none, withPython))
      .toEqual({ build: 'npm ci && npm run build --if-present', command: 'npm start', detected: 'node' });
    expect(planBuild('a', tree({ 'package.json': '{}' }), none, withPython).build).toBe('npm install && npm run build --if-present');
    expect(planBuild('a', tree({ 'package.json': '{}' }), { build: 'npm i', command: null }, withPython).build).toBe('npm i');
  });

  it('lets a Procfile web: line win for the start command', () => {
    expect(planBuild('a', tree({ 'package.json': '{}', Procfile: 'worker: node w.js\nweb: node web.js\n' }), none, withPython))
      .toMatchObject({ command: 'node web.js', detected: 'procfile', build: 'npm install && npm run build --if-present' });
  });

  it('installs Python into a venv and starts it only from a Procfile, refusing clearly without one', () => {
    expect(planBuild('a', tree({ 'requirements.txt': 'flask\n', Procfile: 'web: gunicorn app:app' }), none, withPython))
      .toEqual({ build: 'python3 -m venv .venv && .venv/bin/pip install -r requirements.txt', command: 'PATH="$PWD/.venv/bin:$PATH" gunicorn app:app', detected: 'procfile' });
    expect(planBuild('a', tree({ 'pyproject.toml': '', Procfile: 'web: app' }), none, withPython).build).toBe('python3 -m venv .venv && .venv/bin/pip install .');
    expect(() => planBuild('py', tree({ 'requirements.txt': '' }), none, withPython)).toThrow(/App\/py: a Python app .* add a Procfile with a "web: \.\.\." line/);
  });

  it('builds Go with go build and runs ./app', () => {
    expect(planBuild('a', tree({ 'go.mod': 'module x\n' }), none, withPython)).toEqual({ build: 'go build -o app .', command: './app', detected: 'go' });
  });

  it('serves a static site with Python\'s http.server on $PORT, refusing when the host has no python3', () => {
    expect(planBuild('a', tree({ 'index.html': '<p>hi</p>' }), none, withPython))
      .toEqual({ build: null, command: 'exec /usr/bin/python3 -m http.server "$PORT" --bind 127.0.0.1', detected: 'static' });
    expect(() => planBuild('site', tree({ 'index.html': '' }), none, { python: null })).toThrow(/App\/site: a static site .* no python3/);
  });

  it('refuses a tree it recognises nothing in, naming what it looked for', () => {
    expect(() => planBuild('blank', tree({ 'README.md': '' }), none, withPython)).toThrow(BuildDetectionError);
    expect(() => planBuild('blank', tree({ 'README.md': '' }), none, withPython)).toThrow(/Procfile "web:" line, package.json, requirements.txt, pyproject.toml, go.mod or index.html/);
  });

  it('refuses a Dockerfile, saying cairn builds no images and how to deploy one instead', () => {
    expect(() => planBuild('boxed', tree({ Dockerfile: 'FROM node:20\n' }), none, withPython)).toThrow(/the source is a Dockerfile, and cairn does not build container images: .*spec\.source\.image/);
  });
});
