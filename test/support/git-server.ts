/**
 * @module A real git server on loopback for tests: bare repositories made with the git CLI,
 * served over smart HTTP by git's own `git http-backend` (CGI) behind a small node server on
 * 127.0.0.1:0 — optionally behind basic auth — and a working clone that commits and pushes.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const GIT_HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'cairn test', GIT_AUTHOR_EMAIL: 'test@cairn.invalid', GIT_COMMITTER_NAME: 'cairn test', GIT_COMMITTER_EMAIL: 'test@cairn.invalid',
  GIT_CONFIG_NOSYSTEM: '1', HOME: tmpdir(),
};

export function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();
}

export interface GitServer {
  /** `http://127.0.0.1:PORT` */
  base: string;
  root: string;
  /** Makes a bare repository `NAME.git` with a first commit on `main`, and a working clone to commit from. */
  createRepository(name: string, files: Record<string, string>): GitWorkingCopy;
  stop(): Promise<void>;
}

export interface GitWorkingCopy {
  url: string;
  /** Writes (string) or deletes (null) files, commits them on `main` and pushes; returns the commit id. */
  commit(files: Record<string, string | null>, message?: string): string;
  /** Tags the current commit (annotated) and pushes the tag. */
  tag(name: string): void;
}

function cgiEnvironment(req: IncomingMessage, root: string): NodeJS.ProcessEnv {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  return {
    PATH: process.env.PATH, GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: '1', GIT_CONFIG_NOSYSTEM: '1', HOME: tmpdir(),
    REQUEST_METHOD: req.method ?? 'GET', PATH_INFO: decodeURIComponent(url.pathname), QUERY_STRING: url.search.replace(/^\?/, ''),
    CONTENT_TYPE: req.headers['content-type'] ?? '', REMOTE_ADDR: '127.0.0.1', REMOTE_USER: 'test',
    ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
    ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
  };
}

/** Runs git-http-backend for one request and relays its CGI answer (headers, then body). */
function serveThroughBackend(req: IncomingMessage, res: ServerResponse, root: string): void {
  const backend = spawn(GIT_HTTP_BACKEND, [], { env: cgiEnvironment(req, root), stdio: ['pipe', 'pipe', 'pipe'] });
  req.pipe(backend.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  backend.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.statusCode = status;
    res.write(head.subarray(end + 4));
  });
  backend.on('close', () => {
    if (!headersDone) res.statusCode = 500;
    res.end();
  });
}

export async function startGitServer(options: { basicAuth?: { username: string; password: string } } = {}): Promise<GitServer> {
  const root = mkdtempSync(join(tmpdir(), 'cairn-git-'));
  const served = join(root, 'served');
  mkdirSync(served);
  const expected = options.basicAuth && `Basic ${Buffer.from(`${options.basicAuth.username}:${options.basicAuth.password}`).toString('base64')}`;
  const server: Server = createServer((req, res) => {
    if (expected && req.headers.authorization !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end();
      return;
    }
    serveThroughBackend(req, res, served);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  return {
    base,
    root,
    createRepository(name, files) {
      const bare = join(served, `${name}.git`);
      git(root, ['init', '--quiet', '--bare', '--initial-branch=main', bare]);
      const work = join(root, 'work', name);
      mkdirSync(work, { recursive: true });
      git(work, ['init', '--quiet', '--initial-branch=main']);
      git(work, ['remote', 'add', 'origin', bare]);
      const copy: GitWorkingCopy = {
        url: `${base}/${name}.git`,
        commit(changes, message = 'change manifests') {
          for (const [file, text] of Object.entries(changes)) {
            const path = join(work, file);
            if (text === null) {
              if (existsSync(path)) unlinkSync(path);
            } else {
              mkdirSync(dirname(path), { recursive: true });
              writeFileSync(path, text);
            }
          }
          git(work, ['add', '--all']);
          git(work, ['commit', '--quiet', '--allow-empty', '-m', message]);
          git(work, ['push', '--quiet', 'origin', 'HEAD:main']);
          return git(work, ['rev-parse', 'HEAD']);
        },
        tag(tagName) {
          git(work, ['tag', '-a', tagName, '-m', tagName]);
          git(work, ['push', '--quiet', 'origin', tagName]);
        },
      };
      copy.commit(files, 'first manifests');
      return copy;
    },
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
