/**
 * @module cairn's sandbox cloud: a simulated vendor with its own HTTP API (servers, the databases
 * and apps they host, backups, restores, app logs), state in SQLite, and injectable latency and
 * faults — for tests, demos and benchmarks.
 */
export { startSandboxCloud, type SandboxCloud } from './server.js';
export { FAULT_KINDS, type FaultKind, type SandboxCloudOptions, type SandboxFaults } from './options.js';
export type { SandboxStats } from './request-stats.js';
export { releaseDigest, canonicalJson, type AppReleaseConfig } from './release-digest.js';
