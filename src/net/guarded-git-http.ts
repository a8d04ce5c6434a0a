/**
 * @module isomorphic-git's HTTP client, built on the outbound guard: every git fetch cairn
 * makes for a tenant (git sources, app checkouts) connects only where the guard allows,
 * redirects included.
 */
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { guardedFetch } from './guarded-fetch.js';

async function collect(body: AsyncIterableIterator<Uint8Array> | undefined): Promise<Buffer | undefined> {
  if (body === undefined) return undefined;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function* chunksOf(stream: ReadableStream<Uint8Array> | null): AsyncIterableIterator<Uint8Array> {
  if (stream === null) return;
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) yield chunk;
}

export const guardedGitHttp: HttpClient = {
  async request(request: GitHttpRequest): Promise<GitHttpResponse> {
    const method = request.method ?? 'GET';
    const body = await collect(request.body);
    const response = await guardedFetch(request.url, {
      method,
      headers: request.headers ?? {},
      ...(body === undefined ? {} : { body }),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name] = value));
    return {
      url: response.url,
      method,
      statusCode: response.status,
      statusMessage: response.statusText,
      headers,
      body: chunksOf(response.body as ReadableStream<Uint8Array> | null),
    };
  },
};
