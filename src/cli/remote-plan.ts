/**
 * @module `cairn plan --server URL --token T`: the plan of local manifests against what a running
 * cairn has recorded (its API's dry run), for CI on a pull request. Files are parsed and checked
 * here first (file:line errors; references are the server's to check); with `--source NAME` the
 * files are that git source's whole next revision, so files the pull request deletes show as
 * deletions.
 */
import { planFromApiJson, type PlanApiJson } from '../model/plan-render-json.js';
import type { Plan } from '../model/plan.js';
import { CliError } from './cli-error.js';
import { serverBaseUrl } from './server-url.js';
import { readManifests } from './manifest-input.js';

export interface RemotePlanRequest {
  server: string;
  token: string;
  files: readonly string[];
  source?: string;
  fetch?: typeof fetch;
}

interface ProblemBody {
  detail?: string;
  errors?: Array<{ pointer?: string; message?: string }>;
}

export async function remotePlan(request: RemotePlanRequest): Promise<Plan> {
  const manifests = await readManifests(request.files, undefined, { checkReferences: false });
  const url = new URL('api/v1/manifests', serverBaseUrl(request.server));
  url.searchParams.set('dry_run', 'true');
  if (request.source !== undefined) url.searchParams.set('source', request.source);
  let response: Response;
  try {
    response = await (request.fetch ?? fetch)(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${request.token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ manifests }),
    });
  } catch (error) {
    throw new CliError(`cannot reach cairn at ${request.server}: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`);
  }
  const text = await response.text();
  if (response.status !== 200) {
    let problem: ProblemBody = {};
    try {
      problem = JSON.parse(text) as ProblemBody;
    } catch {
      // not a problem document; the status says enough
    }
    const lines = (problem.errors ?? []).map((e) => `  ${e.pointer ?? ''}: ${e.message ?? ''}`);
    throw new CliError([`cairn at ${request.server} answered ${response.status}: ${problem.detail ?? text.slice(0, 500)}`, ...lines].join('\n'));
  }
  return planFromApiJson(JSON.parse(text) as PlanApiJson);
}
