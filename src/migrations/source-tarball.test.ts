import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { unpackTarball, UnsafeTarballError } from './source-tarball.js';

interface Entry {
  path: string;
  type?: '0' | '2' | '5';
  body?: string;
  link?: string;
}

/** A ustar archive written byte by byte, so the test can put in it what tar tools would refuse to make. */
function tarball(entries: Entry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? '');
    const header = Buffer.alloc(512);
    header.write(entry.path, 0, 100, 'utf8');
    header.write(entry.type === '5' ? '0000755\0' : '0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write(`${Math.floor(Date.now() / 1000).toString(8).padStart(11, '0')}\0`, 136);
    header.write('        ', 148);
    header.write(entry.type ?? '0', 156);
    if (entry.link !== undefined) header.write(entry.link, 157, 100, 'utf8');
    header.write('ustar\0', 257);
    header.write('00', 263);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

const dirs: string[] = [];
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-tarball-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function unpack(entries: Entry[]): Promise<{ root: string; dir: string; base: string }> {
  const base = scratch();
  const file = join(base, 'source.tgz');
  writeFileSync(file, tarball(entries));
  const dir = join(base, 'unpacked');
  return { root: await unpackTarball(file, dir), dir, base };
}

describe('unpackTarball', () => {
  it('unpacks a tarball and runs from its one top directory', async () => {
    const { root, dir } = await unpack([
      { path: 'app/', type: '5' },
      { path: 'app/server.js', body: 'console.log(1)' },
      { path: 'app/lib/', type: '5' },
      { path: 'app/lib/a.js', body: 'a' },
      { path: 'app/current', type: '2', link: 'lib/a.js' },
    ]);
    expect(root).toBe(join(dir, 'app'));
    expect(readFileSync(join(root, 'server.js'), 'utf8')).toBe('console.log(1)');
    expect(readFileSync(join(root, 'current'), 'utf8')).toBe('a');
  });

  it('refuses a tarball with a ../ entry and writes nothing', async () => {
    const attempt = unpack([{ path: 'server.js', body: 'ok' }, { path: '../escaped.txt', body: 'owned' }]);
    await expect(attempt).rejects.toThrow(UnsafeTarballError);
    await expect(attempt).rejects.toThrow(/"\.\.\/escaped\.txt".*goes up with \.\./);
    const base = dirs.at(-1)!;
    expect(existsSync(join(base, 'escaped.txt'))).toBe(false);
    expect(existsSync(join(base, 'unpacked'))).toBe(false);
  });

  it('refuses an absolute path', async () => {
    await expect(unpack([{ path: '/tmp/cairn-absolute.txt', body: 'x' }])).rejects.toThrow(/absolute path/);
  });

  it('refuses a link that leads out, directly or through another link', async () => {
    await expect(unpack([{ path: 'passwd', type: '2', link: '../../etc/passwd' }])).rejects.toThrow(/outside the source/);
    await expect(unpack([{ path: 'etc', type: '2', link: '/etc' }])).rejects.toThrow(/absolute path \/etc/);
    await expect(unpack([{ path: 'd', type: '2', link: '.' }, { path: 'd/l', type: '2', link: '..' }])).rejects.toThrow(/under the link d/);
  });
});
