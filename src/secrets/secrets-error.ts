/**
 * @module The errors of secrets at rest (a bad master key, a value that does not open). Their
 * messages are written for the operator and complete; the CLI prints them as they are, the API
 * answers 500 and logs them.
 */
export class SecretsError extends Error {
  override readonly name: string = 'SecretsError';
}
