/**
 * @module What the fast manifest path will not read: a text-level screen for the YAML features
 * where js-yaml and `yaml` (as the manifest parser sets it up) may disagree — on the value, on
 * whether it is an error, or on where a document starts. Deliberately coarse: it looks for the
 * indicators anywhere, quoted or not, so it can only send too much to `yaml`, never too little.
 */

/** Preceded by nothing, white space, a flow indicator or `:` (as in `"a":*b`): where a node's properties can start. */
const AT_TOKEN = String.raw`(?<![^\s\[{,:])`;

/** Followed by white space, a flow indicator, or nothing: where a name or an indicator ends. */
const ENDS = String.raw`(?![^\s\[\]{},])`;

/** A name as both parsers read anchors and aliases: up to white space or a flow indicator. */
const NAME = String.raw`[^\s\[\]{},]`;

/** Each screen: why the fast path declines, and the pattern that finds it (most start at a rare character, so they run at memchr speed). */
const SCREENS: ReadonlyArray<readonly [string, RegExp]> = [
  // Tabs (yaml refuses them as indentation), control characters, a byte-order mark past the start,
  // NEL/LS/PS (no line breaks in YAML 1.2, but they are to js-yaml), a CR not followed by LF.
  // eslint-disable-next-line no-control-regex -- control characters are what this screen looks for
  ['a tab, control character, byte-order mark or unusual line break', /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\t\ufeff\u2028\u2029]|\r(?!\n)/],
  ['a directive', /^%/m],
  // Content on a `---` line (yaml refuses a block collection there), text glued to a marker, anything after `...`.
  ['a document marker followed by text', /^(?:---(?:[^ \r\n]|[ ]+[^ #\r\n])|\.\.\.[ ]*[^ \r\n])/m],
  ['a tag', new RegExp(`${AT_TOKEN}!`)],
  // yaml wants white space after an anchor, and warns about anchor and alias names ending in `:`.
  ['an anchor ending in ":" or not followed by a space', new RegExp(String.raw`${AT_TOKEN}&(?:${NAME}*:${ENDS}|${NAME}+[\[\]{},])`)],
  // Two anchors on one node: js-yaml keeps the last, yaml refuses.
  ['two anchors on one node', new RegExp(String.raw`${AT_TOKEN}&${NAME}+(?:\s|#[^\n]*)+&`)],
  // An anchor before a key on its line: js-yaml lets it start a mapping where yaml refuses one (`a: &x k: v`).
  ['an anchor before a key', new RegExp(String.raw`${AT_TOKEN}&${NAME}+[ ]+[^\s#{\[][^\n#]*:${ENDS}`)],
  // An alias used as a key: yaml and js-yaml write a list or mapping key differently.
  ['an alias ending in ":" or used as a key', new RegExp(String.raw`${AT_TOKEN}\*${NAME}*[ ]*:${ENDS}`)],
  ['an explicit key (?)', new RegExp(String.raw`(?<![^\s\[{,])\?${ENDS}`)],
  ['a comment glued to a quoted scalar or flow indicator', /['"[\]{},]#/],
  // js-yaml misplaces the items after an empty list item (`-` alone, or with only a comment).
  ['an empty list item', /(?<![^\s])-[ ]*(?:#[^\n]*)?\r?$/m],
  // An escaped line break followed by an empty line, in a double-quoted scalar: the two fold it differently.
  ['an escaped line break before an empty line', /\\\r?\n[ ]*\r?\n/],
  // Block scalar headers: at the top level the two read an indentation indicator (`|2`)
  // differently; keep chomping (`|+`) at the end of a text differently; yaml refuses leading
  // empty lines more indented than the content, which js-yaml lets pass at the top level.
  ['a block scalar indentation indicator or keep chomping', new RegExp(String.raw`${AT_TOKEN}[|>](?:[-+]?[0-9]|\+)`)],
  ['a block scalar starting with a line of spaces', new RegExp(String.raw`${AT_TOKEN}[|>]-?[ ]*(?:#[^\r\n]*)?\r?\n(?:[ ]*\r?\n)*[ ]+(?:\r?\n|$)`)],
  // (In flow context `:` may follow a flow collection directly: `[{}:x]`.)
  ['a list or mapping used as a key', /[\]}][ ]*:/],
  // yaml keys null as "", js-yaml as "null": `~: x`, `null: x`, and keys left empty (`: x`, `- : x`, `{ : x}`, `&a : x`).
  ['a null key', new RegExp(String.raw`(?<![^\s\[{,])(?:~|null|Null|NULL)[ ]*:${ENDS}`)],
  ['an empty key', new RegExp(String.raw`:${ENDS}(?<=(?:^|[\n\[{,]|(?:^|\s)-[ ]|&${NAME}+[ ])[ ]*:)`)],
];

/** yaml refuses implicit keys longer than 1024 characters; a `:` this far into a line may end one. */
const LONG_KEY = new RegExp(String.raw`^[^\n]{1000,}:${ENDS}`, 'm');

function longestLine(text: string): number {
  let longest = 0;
  let start = 0;
  for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
    longest = Math.max(longest, newline - start);
    start = newline + 1;
  }
  return Math.max(longest, text.length - start);
}

/** Why the fast path will not read `text`, or undefined if nothing in it stands in the way. */
export function screenForFastPath(text: string): string | undefined {
  for (const [reason, pattern] of SCREENS) if (pattern.test(text)) return reason;
  if (longestLine(text) >= 1000 && LONG_KEY.test(text)) return 'a key that may be longer than 1024 characters';
  return undefined;
}
