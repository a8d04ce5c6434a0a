/**
 * @module The AWS double on loopback: one HTTP endpoint that serves EC2 the way AWS's Query APIs
 * are spoken (a form-encoded POST with `Action` and `Version`, signed with Signature Version 4,
 * answered in XML), so the unmodified `@aws-sdk/client-ec2` is its client. Every request is
 * parsed against the operation's input shape in AWS's botocore model and every answer checked
 * against (and serialized from) its output shape (test/support/botocore-validator.ts); anything
 * outside the model is recorded in `violations` and answered as AWS would refuse it. Faults as
 * AWS shows them: throttling as `RequestLimitExceeded` (HTTP 503), 5xx as `InternalError` /
 * `Unavailable`, latency, and answers to chosen actions held back (the crash test's window).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { BotocoreService } from '../../support/botocore-validator.js';
import { seededRandom } from '../../support/seeded-random.js';
import { vendorDocument } from '../../support/vendor-double.js';
import { Ec2Account, type DoubleInstance } from './ec2.js';
import { RdsAccount } from './rds.js';
import { answerQueryAction } from './query-answer.js';
import { checkSignature } from './sigv4-check.js';

export const AWS_ACCESS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
export const AWS_SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

export interface AwsDoubleOptions {
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Temporary credentials: every request must carry this as `X-Amz-Security-Token`. */
  sessionToken?: string;
  /** How long pending, stopping and shutting-down last. Default 150 ms. */
  actionMs?: number;
  /** Items per page of the lists (EC2's own pages are far larger; small here so tests cross pages). */
  pageSize?: number;
  /** At most `limit` requests per `windowMs`; more are answered `RequestLimitExceeded`. */
  rateLimit?: { limit: number; windowMs: number };
  latencyMs?: number;
  /** These actions are carried out at once but answered only after `ms`. */
  slowAnswers?: { actions: readonly string[]; ms: number };
}

/** One request, as the shared harness logs calls (`operationId` is the action), with AWS's region and error code. */
export interface AwsCall {
  method: string;
  path: string;
  operationId: string;
  action: string;
  region: string;
  status: number;
  /** The error code answered, if any. */
  code?: string;
}

export interface AwsDouble {
  url: string;
  calls: AwsCall[];
  violations: string[];
  ec2: Ec2Account;
  /** RDS (signed for service `rds`), at the same endpoint. */
  rds: RdsAccount;
  /** Answers `ratio` of requests (seeded) with 5xx. */
  setFaultRatio(ratio: number, seed?: number): void;
  /** The next `count` requests fail with `status` (500: InternalError, else Unavailable). */
  failNext(count: number, status: number): void;
  stop(): Promise<void>;
}

const ec2Model = new BotocoreService(vendorDocument('aws', 'ec2', '2016-11-15', 'service-2.json'));
export const rdsModel = new BotocoreService(vendorDocument('aws', 'rds', '2014-10-31', 'service-2.json'));

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function startAwsDouble(options: AwsDoubleOptions = {}): Promise<AwsDouble> {
  const keys = { accessKeyId: options.accessKeyId ?? AWS_ACCESS_KEY_ID, secretAccessKey: options.secretAccessKey ?? AWS_SECRET_ACCESS_KEY, ...(options.sessionToken === undefined ? {} : { sessionToken: options.sessionToken }) };
  const ec2 = new Ec2Account({ actionMs: options.actionMs ?? 150, pageSize: options.pageSize ?? 2 });
  const rds = new RdsAccount({ actionMs: options.actionMs ?? 150, pageSize: options.pageSize ?? 2 });
  const calls: AwsCall[] = [];
  const violations: string[] = [];
  let faultRatio = 0;
  let failing: { count: number; status: number } = { count: 0, status: 500 };
  let random = seededRandom(1);
  let window: { start: number; count: number } = { start: 0, count: 0 };

  function send(response: ServerResponse, status: number, xml: string): void {
    response.writeHead(status, { 'content-type': 'text/xml;charset=UTF-8', 'x-amzn-requestid': randomUUID() });
    response.end(xml);
  }

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    const text = await readBody(request);
    const params = new URLSearchParams(text);
    const action = params.get('Action') ?? '';
    const call: AwsCall = { method: request.method ?? 'POST', path: request.url ?? '/', operationId: action, action, region: '', status: 200 };
    calls.push(call);
    // Errors answer in the shape of the service the request was signed for (EC2's until known).
    let errorModel = ec2Model;
    const refuse = (status: number, code: string, message: string): void => {
      call.status = status;
      call.code = code;
      send(response, status, errorModel.errorXml(code, message, requestId));
    };
    if (options.latencyMs) await sleep(options.latencyMs);
    if (request.method !== 'POST' || !String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      violations.push(`${request.method ?? ''} ${request.url ?? ''}: not a form-encoded POST (content-type ${String(request.headers['content-type'])})`);
      return refuse(400, 'InvalidRequest', 'The request must be a form-encoded POST');
    }
    const signature = await checkSignature(request, text, keys);
    if (!signature.ok) return refuse(signature.code === 'AuthFailure' ? 401 : 403, signature.code, signature.message);
    call.region = signature.region;
    const model = signature.service === 'rds' ? rdsModel : ec2Model;
    errorModel = model;
    if (signature.service !== 'ec2' && signature.service !== 'rds') {
      violations.push(`${action}: signed for service ${signature.service}, served as ec2 and rds only`);
      return refuse(400, 'InvalidAction', `The service ${signature.service} is not served here`);
    }
    const limit = options.rateLimit;
    if (limit) {
      const now = Date.now();
      if (now - window.start >= limit.windowMs) window = { start: now, count: 0 };
      // EC2 throttles as RequestLimitExceeded (503); RDS, a Query service, as Throttling (400).
      if (++window.count > limit.limit) return model === rdsModel ? refuse(400, 'Throttling', 'Rate exceeded') : refuse(503, 'RequestLimitExceeded', 'Request limit exceeded.');
    }
    if (failing.count > 0) {
      failing.count--;
      return failing.status === 500 ? refuse(500, 'InternalError', 'An internal error has occurred') : refuse(failing.status, 'Unavailable', 'The server is overloaded and cannot handle the request');
    }
    if (faultRatio > 0 && random() < faultRatio) return random() < 0.5 ? refuse(500, 'InternalError', 'An internal error has occurred') : refuse(503, 'Unavailable', 'The server is overloaded and cannot handle the request');
    const account = signature.service === 'rds' ? rds : ec2;
    const answer = answerQueryAction(model, action, params, requestId, (input) => account.handle(action, input, signature.region), violations);
    if (!answer.ok) return refuse(answer.status, answer.code, answer.message);
    if (options.slowAnswers?.actions.includes(action)) await sleep(options.slowAnswers.ms);
    send(response, 200, answer.xml);
  }

  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      violations.push(`double failed: ${(error as Error).stack ?? String(error)}`);
      if (!response.headersSent) send(response, 500, ec2Model.errorXml('InternalError', 'double failed', 'x'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    violations,
    ec2,
    rds,
    failNext(count, status) {
      failing = { count, status };
    },
    setFaultRatio(ratio, seed = 1) {
      faultRatio = ratio;
      random = seededRandom(seed);
    },
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export type { DoubleInstance };
