/**
 * @module The `--server URL` of commands that talk to a running cairn, as the base URL its API
 * paths are resolved against; anything but an http(s) URL is refused, saying what is expected.
 */
import { CliError } from './cli-error.js';

export function serverBaseUrl(server: string): URL {
  try {
    const url = new URL(server.endsWith('/') ? server : `${server}/`);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    return url;
  } catch {
    throw new CliError(`--server must be cairn's address, like https://cairn.example.com, got "${server}"`);
  }
}
