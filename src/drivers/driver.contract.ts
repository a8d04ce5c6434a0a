/**
 * @module The shared contract every driver runs (vitest): `runCloudDriverContract` for cloud
 * drivers and `runRuntimeDriverContract` for runtimes (databases and apps on a server).
 * A driver's test calls them with a factory that makes the driver and cleans up after it.
 */
export { runCloudDriverContract, type CloudDriverFixture } from './cloud-driver.contract.js';
export { runRuntimeDriverContract, type RuntimeContractOptions, type RuntimeDriverFixture } from './runtime-driver.contract.js';
export { contractKey, waitUntil, type ContractTiming } from './waiting.contract.js';
