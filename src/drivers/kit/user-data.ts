/**
 * @module A server's first-boot user data as every cloud vendor takes it: the user's cloud-init
 * text with the server's SSH public keys merged in, so keys reach the server the same way at
 * every vendor (cloud-init's `ssh_authorized_keys`), whether or not the vendor has a key API.
 * A `#cloud-config` document gets the keys added to its own `ssh_authorized_keys`; anything
 * else (a shell script, an include file) travels next to a small `#cloud-config` part in a
 * MIME multi-part archive, which cloud-init reads part by part.
 */
import { isMap, isSeq, parseDocument, YAMLSeq } from 'yaml';

const CLOUD_CONFIG = '#cloud-config';
const BOUNDARY = '==cairn-user-data==';

/** The user data to send at create, or null when there is neither user data nor a key. */
export function composeUserData(userData: string | null | undefined, sshPublicKeys: readonly string[] = []): string | null {
  const keys = [...new Set(sshPublicKeys.map((k) => k.trim()).filter((k) => k !== ''))];
  const text = userData ?? '';
  if (keys.length === 0) return text === '' ? null : text;
  if (text.trim() === '') return cloudConfigWithKeys(keys);
  if (text.startsWith(CLOUD_CONFIG)) return mergeKeysIntoCloudConfig(text, keys);
  return multipart([
    { type: 'text/cloud-config', body: cloudConfigWithKeys(keys) },
    { type: contentTypeOf(text), body: text },
  ]);
}

function cloudConfigWithKeys(keys: readonly string[]): string {
  return `${CLOUD_CONFIG}\nssh_authorized_keys:\n${keys.map((k) => `  - ${JSON.stringify(k)}`).join('\n')}\n`;
}

function mergeKeysIntoCloudConfig(text: string, keys: readonly string[]): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || (doc.contents !== null && !isMap(doc.contents))) {
    throw new Error(`spec.userData starts with #cloud-config but is not a YAML mapping: ${doc.errors[0]?.message ?? 'its top level is not key: value pairs'}`);
  }
  const existing = doc.get('ssh_authorized_keys');
  if (existing !== undefined && !isSeq(existing)) throw new Error('spec.userData: ssh_authorized_keys must be a list of public keys');
  const list = existing ?? new YAMLSeq();
  const present = new Set(list.items.map((item) => String(item && typeof item === 'object' && 'value' in item ? item.value : item)));
  for (const key of keys) if (!present.has(key)) list.add(key);
  if (doc.contents === null) return cloudConfigWithKeys(keys);
  doc.set('ssh_authorized_keys', list);
  // lineWidth 0: a key stays on one line (YAML would fold a long one, which reads back the same but not to a person).
  return `${CLOUD_CONFIG}\n${doc.toString({ lineWidth: 0 }).replace(/^#cloud-config\n/, '')}`;
}

/** cloud-init's content type for a part, from its first line (cloud-init's own starts-with table). */
function contentTypeOf(text: string): string {
  if (text.startsWith('#!')) return 'text/x-shellscript';
  if (text.startsWith('#include')) return 'text/x-include-url';
  if (text.startsWith('#cloud-boothook')) return 'text/cloud-boothook';
  if (text.startsWith('## template: jinja')) return 'text/jinja2';
  return 'text/plain';
}

function multipart(parts: ReadonlyArray<{ type: string; body: string }>): string {
  const lines = ['Content-Type: multipart/mixed; boundary="' + BOUNDARY + '"', 'MIME-Version: 1.0', ''];
  for (const part of parts) {
    lines.push(`--${BOUNDARY}`, `Content-Type: ${part.type}; charset="utf-8"`, 'MIME-Version: 1.0', '');
    lines.push(part.body.endsWith('\n') ? part.body.slice(0, -1) : part.body);
  }
  lines.push(`--${BOUNDARY}--`, '');
  return lines.join('\n');
}
