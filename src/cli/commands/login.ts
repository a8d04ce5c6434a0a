/**
 * @module `cairn login --server URL` signs in to a running cairn and stores the tokens for
 * later commands (credentials-file.ts). With `--email E` the password comes from stdin or a
 * prompt; with `--github`, `--google` or `--gitlab` it is the browser flow of a native app
 * (RFC 8252): it listens on a loopback port, prints the sign-in URL to open, and the sign-in
 * redirects back to `http://127.0.0.1:<port>/cairn-login?code=...`, a one-time code it trades
 * for tokens at `POST /api/v1/auth/exchange`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { saveCredentials } from '../credentials-file.js';
import { readPassword } from '../password-input.js';

const LOOPBACK_LOGIN_PATH = '/cairn-login';
const PROVIDERS = ['github', 'google', 'gitlab'] as const;

interface LoginOptions {
  server: string;
  email?: string;
  github?: boolean;
  google?: boolean;
  gitlab?: boolean;
  timeout: string;
}

interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

async function postJson(server: string, path: string, body: unknown): Promise<TokenAnswer> {
  let response: Response;
  try {
    response = await fetch(new URL(`api/v1/${path}`, server.endsWith('/') ? server : `${server}/`), {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
  } catch (error) {
    throw new CliError(`cannot reach ${server}: ${(error as Error).message}`);
  }
  const answer = (await response.json().catch(() => ({}))) as Partial<TokenAnswer> & { detail?: string };
  if (!response.ok || typeof answer.access_token !== 'string' || typeof answer.refresh_token !== 'string') {
    throw new CliError(`sign-in refused (HTTP ${response.status}): ${answer.detail ?? 'no tokens in the answer'}`);
  }
  return answer as TokenAnswer;
}

/** Waits for the sign-in's redirect to the loopback listener; resolves with its one-time code. */
function listenForCode(timeoutMs: number): Promise<{ redirectUri: string; code: Promise<string>; close: () => void }> {
  return new Promise((resolveListening, rejectListening) => {
    let deliver: (code: string) => void = () => undefined;
    let fail: (error: Error) => void = () => undefined;
    const code = new Promise<string>((resolve, reject) => {
      deliver = resolve;
      fail = reject;
    });
    const server: Server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const given = url.searchParams.get('code');
      if (url.pathname !== LOOPBACK_LOGIN_PATH || !given) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not the cairn login callback');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('Signed in to cairn; you may close this window and go back to the terminal.\n');
      deliver(given);
    });
    const timer = setTimeout(() => fail(new CliError(`no sign-in arrived within ${Math.round(timeoutMs / 1000)} s; run cairn login again`)), timeoutMs);
    const close = (): void => {
      clearTimeout(timer);
      server.closeAllConnections();
      server.close();
    };
    server.once('error', rejectListening);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolveListening({ redirectUri: `http://127.0.0.1:${port}${LOOPBACK_LOGIN_PATH}`, code, close });
    });
  });
}

async function browserLogin(server: string, provider: (typeof PROVIDERS)[number], timeoutMs: number): Promise<TokenAnswer> {
  const listener = await listenForCode(timeoutMs);
  try {
    const start = new URL(`api/v1/auth/${provider}`, server.endsWith('/') ? server : `${server}/`);
    start.searchParams.set('redirect_uri', listener.redirectUri);
    console.log(`Open this URL in a browser to sign in through ${provider}:\n\n  ${start.href}\n\nwaiting for the sign-in on ${listener.redirectUri} ...`);
    const code = await listener.code;
    return await postJson(server, 'auth/exchange', { code });
  } finally {
    listener.close();
  }
}

export function registerLoginCommand(program: Command): void {
  program
    .command('login')
    .description('sign in to a running cairn and store the tokens for later commands')
    .requiredOption('--server <url>', 'the cairn to sign in to, e.g. https://cairn.example.com')
    .option('--email <email>', 'sign in with e-mail and password (the password from stdin or a prompt)')
    .option('--github', 'sign in through GitHub in a browser')
    .option('--google', 'sign in through Google in a browser')
    .option('--gitlab', 'sign in through GitLab in a browser')
    .option('--timeout <seconds>', 'how long to wait for the browser sign-in', '300')
    .action(async (options: LoginOptions) => {
      let server: URL;
      try {
        server = new URL(options.server);
      } catch {
        throw new CliError(`--server must be a URL such as https://cairn.example.com, not "${options.server}"`);
      }
      const chosen = PROVIDERS.filter((p) => options[p] === true);
      if (chosen.length + (options.email !== undefined ? 1 : 0) !== 1) throw new CliError('say how to sign in: exactly one of --email E, --github, --google, --gitlab');
      const timeoutSeconds = Number(options.timeout);
      if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new CliError(`--timeout must be a positive number of seconds, not "${options.timeout}"`);
      const tokens = options.email !== undefined
        ? await postJson(server.href, 'auth/login', { email: options.email, password: await readPassword(`password for ${options.email}: `) })
        : await browserLogin(server.href, chosen[0]!, timeoutSeconds * 1000);
      const path = saveCredentials(server.href, {
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
        expires_at: new Date(Date.now() + tokens.expires_in * 1000).toISOString(),
      });
      console.log(`signed in to ${server.origin}; tokens stored in ${path}`);
    });
}
