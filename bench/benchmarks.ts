/**
 * @module The benchmarks, by name, in the order `npm run bench` runs them.
 */
import { apiBenchmark } from './api.bench.js';
import { cliBenchmark } from './cli.bench.js';
import { applyFleetBenchmark } from './apply-fleet.bench.js';
import { applyBenchmark } from './apply.bench.js';
import { fairnessBenchmark } from './fairness.bench.js';
import { gitopsBenchmark } from './gitops.bench.js';
import { kubectlBenchmark } from './kubectl.bench.js';
import { localBenchmark } from './local.bench.js';
import { planBenchmark } from './plan.bench.js';
import { replicasBenchmark } from './replicas.bench.js';
import { sealBenchmark } from './seal.bench.js';
import { sshBenchmark } from './ssh.bench.js';
import { sshAppsBenchmark } from './ssh-apps.bench.js';
import { vendorsBenchmark } from './vendors.bench.js';
import type { Benchmark } from './support/benchmark.js';

export const BENCHMARKS: ReadonlyArray<Benchmark<unknown>> = [cliBenchmark, planBenchmark, applyBenchmark, applyFleetBenchmark, apiBenchmark, gitopsBenchmark, kubectlBenchmark, localBenchmark, sshBenchmark, sshAppsBenchmark, sealBenchmark, fairnessBenchmark, vendorsBenchmark, replicasBenchmark];
