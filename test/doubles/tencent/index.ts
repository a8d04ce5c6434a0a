/**
 * @module A stateful double of Tencent Cloud's API 3.0 on loopback, for the tencent driver's
 * tests: CVM (cvm.ts) served at `/cvm/` TencentDB for PostgreSQL (postgres.ts) at `/postgres/` and TencentDB for MongoDB (mongodb.ts) at `/mongodb/` on the wire of server.ts, every request's TC3 signature
 * recomputed with the SecretKey, every request and answer checked against its service's api.json
 * (test/vendor-apis/tencent/<service>/<version>/api.json). The unmodified SDK is its client.
 */
import type { CommonDoubleOptions, DoubleCall } from '../../support/vendor-double.js';
import { vendorDocument } from '../../support/vendor-double.js';
import { TencentApiValidator } from '../../support/tencent-api-validator.js';
import { CvmState, type CvmInstance } from './cvm.js';
import { MongodbState, type MongoBackup, type MongoInstance } from './mongodb.js';
import { PostgresState, type PgInstance } from './postgres.js';
import { startTencentServer } from './server.js';

/** The SecretId the double knows (the SecretKey is the options' `token`). */
export const TENCENT_TEST_SECRET_ID = 'AKIDcairnTestSecretId0000000000000000';

export const CVM_DOCUMENT = vendorDocument('tencent', 'cvm', 'v20170312', 'api.json');
export const POSTGRES_DOCUMENT = vendorDocument('tencent', 'postgres', 'v20170312', 'api.json');
export const MONGODB_DOCUMENT = vendorDocument('tencent', 'mongodb', 'v20190725', 'api.json');

export interface TencentDoubleOptions extends CommonDoubleOptions {
  /** The most items a Describe list gives a page, whatever `Limit` asks (Tencent: 100); small so lists page. */
  pageSize?: number;
}

export interface TencentDouble {
  url: string;
  calls: DoubleCall[];
  violations: string[];
  setFaultRatio(ratio: number, seed?: number): void;
  /** What the double holds now (tests look at "the cloud" directly). */
  instances(): CvmInstance[];
  /** The TencentDB for PostgreSQL instances it holds. */
  databases(): PgInstance[];
  /** The TencentDB for MongoDB instances it holds, and their backups. */
  mongos(): MongoInstance[];
  mongoBackups(): MongoBackup[];
  stop(): Promise<void>;
}

let validator: TencentApiValidator | undefined;
let postgresValidator: TencentApiValidator | undefined;
let mongodbValidator: TencentApiValidator | undefined;

export async function startTencentDouble(options: TencentDoubleOptions = {}): Promise<TencentDouble> {
  validator ??= new TencentApiValidator(CVM_DOCUMENT);
  postgresValidator ??= new TencentApiValidator(POSTGRES_DOCUMENT);
  mongodbValidator ??= new TencentApiValidator(MONGODB_DOCUMENT);
  const mongodb = new MongodbState({ actionMs: options.actionMs ?? 150, pageSize: options.pageSize ?? 3 });
  const postgres = new PostgresState({ actionMs: options.actionMs ?? 150, pageSize: options.pageSize ?? 3 });
  const cvm = new CvmState({ actionMs: options.actionMs ?? 150, pageSize: options.pageSize ?? 3 });
  const server = await startTencentServer({
    services: { cvm: { validator, handlers: cvm.handlers() }, postgres: { validator: postgresValidator, handlers: postgres.handlers() }, mongodb: { validator: mongodbValidator, handlers: mongodb.handlers() } },
    secretId: TENCENT_TEST_SECRET_ID,
    secretKey: options.token ?? 'tencent-test-token',
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    ...(options.latencyMs ? { latencyMs: options.latencyMs } : {}),
    ...(options.slowAnswers ? { slowAnswers: options.slowAnswers } : {}),
  });
  return { ...server, instances: () => cvm.all(), databases: () => postgres.all(), mongos: () => mongodb.all(), mongoBackups: () => mongodb.backups() };
}
