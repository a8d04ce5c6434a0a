/**
 * @module Arguments chosen to break naive shell quoting, shared by the quoting tests and the
 * SSH transport's tests (each must arrive at the far end exactly as sent).
 */
export const HOSTILE_ARGUMENTS: readonly string[] = [
  'plain',
  'with space',
  "it's",
  '"double"',
  '$(touch /tmp/cairn-pwned)',
  '`id`',
  'a; rm -rf /',
  'line one\nline two',
  '-n',
  '--help',
  'ünïcødé ✓ 日本',
  '',
  "'",
  "''",
  '\\',
  '$HOME',
  '${IFS}',
  '*',
  '~',
  '=cmd',
  'a|b&c>d<e',
  '\t\r',
  '!event',
  '#comment',
];
