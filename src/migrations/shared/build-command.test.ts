import { describe, expect, it } from 'vitest';
import { buildCommandFor, buildpackName } from './build-command.js';

describe('buildpackName', () => {
  it('reads the registry name, Heroku’s repository URL and the registry tarball alike', () => {
    expect(buildpackName('heroku/nodejs')).toBe('heroku/nodejs');
    expect(buildpackName('https://github.com/heroku/heroku-buildpack-python')).toBe('heroku/python');
    expect(buildpackName('https://github.com/heroku/heroku-buildpack-go.git')).toBe('heroku/go');
    expect(buildpackName('https://buildpack-registry.s3.amazonaws.com/buildpacks/heroku/ruby.tgz')).toBe('heroku/ruby');
  });

  it('leaves a third-party buildpack as given', () => {
    expect(buildpackName('https://github.com/someone/heroku-buildpack-ffmpeg')).toBe('https://github.com/someone/heroku-buildpack-ffmpeg');
  });
});

describe('buildCommandFor', () => {
  it('maps each official buildpack to its build command', () => {
    expect(buildCommandFor(['heroku/nodejs'])).toEqual({ command: 'npm ci && npm run build --if-present', unknown: [] });
    expect(buildCommandFor(['heroku/python']).command).toBe('pip install -r requirements.txt');
    expect(buildCommandFor(['heroku/go']).command).toBe('go build -o bin/ ./...');
  });

  it('runs several buildpacks in Heroku’s order, each command once', () => {
    expect(buildCommandFor(['heroku/python', 'heroku/nodejs', 'https://github.com/heroku/heroku-buildpack-nodejs']).command).toBe(
      'pip install -r requirements.txt && npm ci && npm run build --if-present',
    );
  });

  it('names the buildpacks it has no command for instead of guessing', () => {
    expect(buildCommandFor(['heroku/nodejs', 'https://github.com/jonathanong/heroku-buildpack-ffmpeg-latest'])).toEqual({
      command: 'npm ci && npm run build --if-present',
      unknown: ['https://github.com/jonathanong/heroku-buildpack-ffmpeg-latest'],
    });
  });

  it('has no command for no buildpack, and none for buildpacks with no build step', () => {
    expect(buildCommandFor([])).toEqual({ command: undefined, unknown: [] });
    expect(buildCommandFor(['heroku/procfile'])).toEqual({ command: undefined, unknown: [] });
  });
});
