/**
 * @module The terminal's WebSocket protocol: binary frames carry terminal bytes both ways; text
 * frames are JSON control messages. The client sends `resize`; the server sends `session` first
 * and `exit` when the shell ends. A control message that is not understood closes with 1008.
 */

export const TERMINAL_SUBPROTOCOL = 'cairn.terminal.v1';
/** Browsers cannot set headers on a WebSocket: they offer the bearer token as this subprotocol prefix. */
export const BEARER_SUBPROTOCOL_PREFIX = 'cairn.bearer.';
/** WebSocket close code for a message that breaks the protocol. */
export const POLICY_VIOLATION = 1008;
export const MAX_TERMINAL_SIZE = 1000;

export interface TerminalSize {
  cols: number;
  rows: number;
}

export type ClientControl = { type: 'resize' } & TerminalSize;

export type ServerControl =
  | { type: 'session'; id: string; expires_in_seconds: number }
  | { type: 'exit'; code: number };

/** Thrown for a control message the server does not understand; its message is the close reason. */
export class ControlMessageError extends Error {
  override readonly name = 'ControlMessageError';
}

function dimension(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TERMINAL_SIZE) {
    throw new ControlMessageError(`resize: ${field} must be an integer from 1 to ${MAX_TERMINAL_SIZE}`);
  }
  return value;
}

/** A client's text frame as a control message, or a ControlMessageError saying what is wrong. */
export function parseClientControl(text: string): ClientControl {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    throw new ControlMessageError('a text frame must be a JSON control message; send terminal input as binary frames');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) throw new ControlMessageError('a control message must be a JSON object with a "type"');
  const { type, ...rest } = message as Record<string, unknown>;
  if (type !== 'resize') throw new ControlMessageError(`unknown control message type ${JSON.stringify(type)}; the client may send "resize"`);
  const unknown = Object.keys(rest).filter((k) => k !== 'cols' && k !== 'rows');
  if (unknown.length > 0) throw new ControlMessageError(`resize: unknown field ${unknown[0]}`);
  return { type, cols: dimension(rest.cols, 'cols'), rows: dimension(rest.rows, 'rows') };
}

/** The subprotocols a WebSocket handshake offers (Sec-WebSocket-Protocol, comma separated). */
export function offeredSubprotocols(header: string | string[] | undefined): string[] {
  const joined = Array.isArray(header) ? header.join(',') : (header ?? '');
  return joined.split(',').map((p) => p.trim()).filter((p) => p !== '');
}

/** The bearer token offered as `cairn.bearer.<token>`, if any. */
export function bearerFromSubprotocols(offered: readonly string[]): string | undefined {
  const found = offered.find((p) => p.startsWith(BEARER_SUBPROTOCOL_PREFIX));
  const token = found?.slice(BEARER_SUBPROTOCOL_PREFIX.length);
  return token ? token : undefined;
}
