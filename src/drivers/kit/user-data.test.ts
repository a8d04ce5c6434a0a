import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { composeUserData } from './user-data.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG2Bv9nS6 ops@example.com';

describe('composeUserData', () => {
  it('is null with neither user data nor keys, and passes user data through untouched without keys', () => {
    expect(composeUserData(null, [])).toBeNull();
    expect(composeUserData('', [])).toBeNull();
    expect(composeUserData('#!/bin/sh\necho hi\n', [])).toBe('#!/bin/sh\necho hi\n');
  });

  it('makes a #cloud-config with the keys when there is no user data', () => {
    const text = composeUserData(undefined, [KEY, ` ${KEY} `])!;
    expect(text.startsWith('#cloud-config\n')).toBe(true);
    expect(parse(text)).toEqual({ ssh_authorized_keys: [KEY] });
  });

  it('adds the keys to a #cloud-config document, keeping what it has and not repeating a key', () => {
    const other = 'ssh-rsa AAAAB3NzaC1yc2E other@example.com';
    const text = composeUserData(`#cloud-config\npackages: [nginx]\nssh_authorized_keys:\n  - ${other}\n`, [KEY, other])!;
    expect(text.startsWith('#cloud-config\n')).toBe(true);
    expect(parse(text)).toEqual({ packages: ['nginx'], ssh_authorized_keys: [other, KEY] });
  });

  it('keeps a long key on one line when merging it into a #cloud-config', () => {
    const long = `ssh-rsa AAAAB3NzaC1yc2E${'A'.repeat(540)} cairn:default/legacy`;
    const merged = composeUserData('#cloud-config\npackages: [nginx]\n', [long])!;
    expect(merged.split('\n')).toContain(`  - ${long}`);
    expect(parse(merged)).toEqual({ packages: ['nginx'], ssh_authorized_keys: [long] });
  });

  it('sends a shell script beside a cloud-config part in a MIME multi-part archive', () => {
    const text = composeUserData('#!/bin/sh\necho hi\n', [KEY])!;
    expect(text).toMatch(/^Content-Type: multipart\/mixed; boundary="([^"]+)"/);
    expect(text).toContain('Content-Type: text/cloud-config');
    expect(text).toContain(`  - "${KEY}"`);
    expect(text).toContain('Content-Type: text/x-shellscript');
    expect(text).toContain('#!/bin/sh\necho hi');
    expect(text.trimEnd().endsWith('--')).toBe(true);
  });

  it('refuses a #cloud-config that is not a mapping or whose ssh_authorized_keys is not a list', () => {
    expect(() => composeUserData('#cloud-config\n- a\n- b\n', [KEY])).toThrow(/not a YAML mapping/);
    expect(() => composeUserData('#cloud-config\nssh_authorized_keys: one\n', [KEY])).toThrow(/must be a list/);
  });
});
