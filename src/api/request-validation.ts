/**
 * @module Request bodies checked against the OpenAPI document's schemas (JSON Schema 2020-12):
 * unknown fields, wrong types and out-of-range values are 422 with a JSON pointer per problem.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ValidationError } from '../model/errors.js';
import { describeSchemaErrors } from '../model/schema-issue-messages.js';
import { openApiDocument } from './openapi-document.js';

const DOCUMENT_ID = 'urn:cairn:openapi';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

function validatorFor(method: string, template: string): ValidateFunction {
  const id = `${method} ${template}`;
  const found = compiled.get(id);
  if (found) return found;
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true, verbose: true, discriminator: true });
    addFormats(ajv);
    ajv.addSchema({ ...openApiDocument(), $id: DOCUMENT_ID });
  }
  const operation = openApiDocument().paths[template]?.[method];
  const pointer = `/paths/${escape(template)}/${method}/requestBody/content/application~1json/schema`;
  if (!hasJsonBody(operation)) throw new Error(`schemas/openapi.yaml has no JSON request body for ${method.toUpperCase()} ${template}`);
  const validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
  compiled.set(id, validate);
  return validate;
}

function isEmpty(body: unknown): boolean {
  return body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);
}

function escape(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function hasJsonBody(operation: unknown): boolean {
  const body = (operation as { requestBody?: { content?: Record<string, unknown> } } | undefined)?.requestBody;
  return body?.content?.['application/json'] !== undefined;
}

/**
 * Returns `body` typed as T once it matches the schema of `method template` in the document;
 * throws a ValidationError (422) listing every problem otherwise.
 */
export function validateBody<T>(method: string, template: string, body: unknown): T {
  const operation = openApiDocument().paths[template]?.[method.toLowerCase()];
  if (operation !== undefined && !hasJsonBody(operation)) {
    if (isEmpty(body)) return body as T;
    throw new ValidationError('this request takes no body', [{ pointer: '', message: 'must be empty' }]);
  }
  const validate = validatorFor(method.toLowerCase(), template);
  if (validate(body)) return body as T;
  const issues = describeSchemaErrors(validate.errors ?? [], 'api').map(({ pointer, message }) => ({ pointer, message }));
  throw new ValidationError(issues.map((i) => `${i.pointer || 'body'}: ${i.message}`).join('; '), issues);
}
