/**
 * @module examples/ssh on a host as its README says to set it up: cairn's runtime key for the
 * tenant (`cairn ssh-keys runtime` on the data dir) goes into the authorized_keys of a real sshd
 * on loopback, whose sessions keep cairn's files in `runtimeDir`; a copy of the example in
 * `exampleDir` names that sshd as its host and its app's source by absolute path.
 */
import { chmodSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT, runCairn } from './cairn-process.js';
import { startSshd, type RunningSshd } from './sshd.js';

export async function sshExampleOnLoopback(options: { dataDir: string; runtimeDir: string; exampleDir: string }): Promise<RunningSshd> {
  const { dataDir, runtimeDir, exampleDir } = options;
  // The host's PostgreSQL runs as the postgres user, which must reach the runtime directory.
  chmodSync(dirname(runtimeDir), 0o711);
  cpSync(join(REPO_ROOT, 'examples', 'ssh'), exampleDir, { recursive: true });
  const keys = await runCairn(['ssh-keys', 'runtime', '--data-dir', dataDir]);
  const publicKey = keys.stdout.split('\n').find((line) => line.startsWith('ssh-ed25519 '));
  if (keys.code !== 0 || !publicKey) throw new Error(`cairn ssh-keys runtime printed no key:\n${keys.stdout}\n${keys.stderr}`);
  const sshd = await startSshd({ authorizedKeys: [publicKey], setEnv: { CAIRN_RUNTIME_DIR: runtimeDir } });
  const server = readFileSync(join(exampleDir, 'server.yaml'), 'utf8')
    .replace(/host: .*/, `host: ${sshd.host}`)
    .replace(/port: .*/, `port: ${sshd.port}`)
    .replace(/user: .*/, `user: ${sshd.user}`);
  writeFileSync(join(exampleDir, 'server.yaml'), server);
  writeFileSync(join(exampleDir, 'app.yaml'), readFileSync(join(exampleDir, 'app.yaml'), 'utf8').replace('path: examples/ssh/hello', `path: ${join(exampleDir, 'hello')}`));
  return sshd;
}
