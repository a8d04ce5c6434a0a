/**
 * @module An app's source sent to its host: the local directory (a git checkout cairn made, or an
 * allowed path source) packed as one tar stream by the `tar` package and unpacked by the host's
 * `tar -x` into the release directory, over one SSH channel (one round trip, whatever the number
 * of files; SFTP would take several round trips per file).
 */
import { Readable } from 'node:stream';
import { create as packTar } from 'tar';
import type { RemoteHost } from './remote-host.js';

const UPLOAD_TIMEOUT_MS = 10 * 60_000;

/** Runs `unpack` on the host (a command that reads a tar stream on stdin: `tar -x ...`) with `localDir`'s files as its input. */
export async function uploadDirectory(host: RemoteHost, localDir: string, unpack: readonly string[], signal?: AbortSignal): Promise<void> {
  const pack = packTar({ cwd: localDir, portable: true, follow: false }, ['.']);
  await host.session.run(unpack, {
    stdin: Readable.from(pack), timeoutMs: UPLOAD_TIMEOUT_MS, ...(signal ? { signal } : {}),
  });
}
