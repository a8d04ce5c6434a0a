/**
 * @module The process's logger: pino JSON lines at the level CAIRN_LOG_LEVEL names, with
 * secrets (Authorization headers, cookies, passwords, tokens, credentials, webhook secrets,
 * connection strings, API keys) censored wherever a log call puts them, however deep (see
 * scrub-secrets.ts), in child loggers' bindings too, and in requests and responses logged raw.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, type DestinationStream, type Logger } from 'pino';
import { scrubSecrets } from './scrub-secrets.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

/** What a censored value reads as. */
export const REDACTED = '[redacted]';

/** pino's request serializer, with secret headers censored and no query string (it may carry tokens). */
function requestSerializer(req: IncomingMessage): Record<string, unknown> {
  const serialized: Record<string, unknown> = { ...pino.stdSerializers.req(req) };
  if (typeof serialized.url === 'string') serialized.url = serialized.url.split('?')[0];
  return scrubSecrets(serialized, REDACTED);
}

/** pino's response serializer, with secret headers (`Set-Cookie`) censored. */
function responseSerializer(res: ServerResponse): Record<string, unknown> {
  return scrubSecrets({ ...pino.stdSerializers.res(res) }, REDACTED);
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where the JSON lines go; stdout when absent. */
  destination?: DestinationStream;
}

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** CAIRN_LOG_LEVEL, `info` when unset; any other word is a mistake the operator should hear about. */
export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const raw = env.CAIRN_LOG_LEVEL?.trim().toLowerCase();
  if (raw === undefined || raw === '') return DEFAULT_LOG_LEVEL;
  if (!isLogLevel(raw)) throw new Error(`CAIRN_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${env.CAIRN_LOG_LEVEL}"`);
  return raw;
}

/** A logger writing JSON lines (`level` as a word, ISO timestamps) with secrets censored. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const settings = {
    level: options.level ?? DEFAULT_LOG_LEVEL,
    // Not pino's `redact`: its wildcard paths (`*.password`) cost tens of microseconds a line.
    serializers: { err: pino.stdSerializers.err, req: requestSerializer, res: responseSerializer },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label: string) => ({ level: label }),
      log: (object: Record<string, unknown>) => scrubSecrets(object, REDACTED),
    },
  };
  const logger = options.destination ? pino(settings, options.destination) : pino(settings);
  // pino formats a child's bindings once, with no hook for them; every child (a request's
  // included) inherits this from the root, so bindings are scrubbed like log objects.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the right `this`
  const pinoChild = logger.child as unknown as (this: Logger, bindings: Record<string, unknown>, childOptions?: unknown) => Logger;
  logger.child = function child(this: Logger, bindings: Record<string, unknown>, childOptions?: unknown): Logger {
    return pinoChild.call(this, scrubSecrets(bindings, REDACTED), childOptions);
  } as unknown as Logger['child'];
  return logger;
}
