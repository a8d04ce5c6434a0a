/**
 * @module The SSH transport: connections (one multiplexed per host and identity), host keys
 * pinned on first use, the one quoting function for remote arguments, commands, streams, SFTP
 * files, PTY shells, and server metrics read from /proc.
 */
export { SshConnections, SshConnectError, type SshConnectionsOptions, type SshIdentity, type SshTarget } from './connection-pool.js';
export {
  fingerprintOfKeyBlob,
  HostKeyChangedError,
  hostIdOf,
  MemoryHostKeyPins,
  verifyHostKey,
  type HostKeyPins,
} from './host-keys.js';
export { readProcMetrics, ProcMetricsParseError } from './proc-metrics.js';
export {
  RemoteCommandAbortedError,
  RemoteCommandError,
  RUN_STDOUT_CAP,
  SshSession,
  STDERR_TAIL_CAP,
  type RunOptions,
  type RunResult,
  type ShellOptions,
  type StreamedCommand,
} from './session.js';
export { quoteShellArg, shellCommand, UnquotableArgumentError } from './shell-quote.js';
