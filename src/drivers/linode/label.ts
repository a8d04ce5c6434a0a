/**
 * @module A cairn server name made into a valid Linode label: 3 to 64 characters, starting with
 * a letter, then letters, digits, `-`, `_` and `.`, never two `-`, `_` or `.` in a row (the
 * document's pattern `^[a-zA-Z]((?!--|__|\.\.)[a-zA-Z0-9-_.])+$`). Other characters become `-`,
 * runs of punctuation shrink to one, and a name too short is padded, so the same name always
 * gives the same label.
 */

const MIN = 3;
const MAX = 64;

export function linodeLabel(name: string): string {
  let label = name
    .replace(/[^a-zA-Z0-9\-_.]/g, '-')
    .replace(/([-_.])[-_.]+/g, '$1');
  if (!/^[a-zA-Z]/.test(label)) label = `c-${label.replace(/^[-_.]+/, '')}`;
  label = label.slice(0, MAX);
  while (label.length < MIN) label += '0';
  return label;
}

/** Whether `label` is one Linode accepts as it is. */
export function isLinodeLabel(label: string): boolean {
  return label.length >= MIN && label.length <= MAX && /^[a-zA-Z]((?!--|__|\.\.)[a-zA-Z0-9\-_.])+$/.test(label);
}
