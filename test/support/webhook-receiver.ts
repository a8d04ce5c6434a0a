/**
 * @module A loopback HTTP receiver for outbound webhooks in tests: records each request (path,
 * headers, raw body), answers what `answer` says (204 by default), and checks a
 * `X-Cairn-Signature-256` as a receiver would (HMAC of the raw body, compared in constant time).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  received: ReceivedHook[];
  close(): Promise<void>;
}

/** Starts a receiver; `answer` picks each request's status. */
export async function startWebhookReceiver(answer: (hook: ReceivedHook) => number = () => 204): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const hook = { path: req.url ?? '', headers: req.headers, body };
      received.push(hook);
      res.writeHead(answer(hook)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Whether the hook's X-Cairn-Signature-256 is the HMAC-SHA256 of its raw body with `secret`. */
export function signatureValid(hook: ReceivedHook, secret: string): boolean {
  const given = Buffer.from(String(hook.headers['x-cairn-signature-256'] ?? ''));
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(hook.body).digest('hex')}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
