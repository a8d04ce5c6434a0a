/**
 * @module One Query-protocol action answered as AWS does, for the AWS doubles (EC2 and RDS in
 * server.ts, DocumentDB in docdb.ts): the action must be the model's, the request is parsed into
 * its input shape, the double's account handles it (an Ec2Error is AWS's error answer), and the
 * answer is written from the output shape. Whatever is outside the model becomes a violation.
 */
import type { BotocoreService, Wire } from '../../support/botocore-validator.js';
import { Ec2Error } from './ec2.js';

export type QueryAnswer = { ok: true; xml: string } | { ok: false; status: number; code: string; message: string };

export function answerQueryAction(
  model: BotocoreService,
  action: string,
  params: URLSearchParams,
  requestId: string,
  handle: (input: Wire) => Wire,
  violations: string[],
): QueryAnswer {
  if (!model.hasOperation(action)) {
    violations.push(`${action}: not an action of ${model.apiVersion}'s model`);
    return { ok: false, status: 400, code: 'InvalidAction', message: `The action ${action} is not valid for this web service.` };
  }
  const { input, problems } = model.parseRequest(action, params);
  if (problems.length > 0) {
    violations.push(...problems);
    return { ok: false, status: 400, code: 'InvalidParameterValue', message: problems.join('; ') };
  }
  let output: Wire;
  try {
    output = handle(input);
  } catch (error) {
    if (error instanceof Ec2Error) return { ok: false, status: error.status, code: error.code, message: error.message };
    throw error;
  }
  const answer = model.serializeAnswer(action, output, requestId);
  if (answer.problems.length > 0) {
    violations.push(...answer.problems);
    return { ok: false, status: 500, code: 'InternalFailure', message: answer.problems.join('; ') };
  }
  return { ok: true, xml: answer.xml };
}
