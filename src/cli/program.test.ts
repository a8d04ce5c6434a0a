/**
 * @module The program loads only the subcommand it runs: which ones `commandsToLoad` picks for
 * a command line, and that the table's names are the names the modules register.
 */
import { describe, expect, it } from 'vitest';
import { buildProgram, COMMAND_NAMES, commandsToLoad } from './program.js';

describe('commandsToLoad', () => {
  it('loads only the command named first', () => {
    expect(commandsToLoad(['validate', '-f', 'x.yaml'])).toEqual(['validate']);
    expect(commandsToLoad(['sources', 'add', 'repo', '--url', 'http://x'])).toEqual(['sources']);
    expect(commandsToLoad(['plan', '--help'])).toEqual(['plan']);
  });

  it('loads none for --version, all for help, nothing named or an unknown name', () => {
    expect(commandsToLoad(['--version'])).toEqual([]);
    expect(commandsToLoad(['-V'])).toEqual([]);
    expect(commandsToLoad(['--help'])).toEqual(COMMAND_NAMES);
    expect(commandsToLoad([])).toEqual(COMMAND_NAMES);
    expect(commandsToLoad(['help', 'plan'])).toEqual(COMMAND_NAMES);
    expect(commandsToLoad(['valdate'])).toEqual(COMMAND_NAMES);
  });
});

describe('buildProgram', () => {
  it('registers every command under the name its table entry gives', async () => {
    expect((await buildProgram()).commands.map((c) => c.name())).toEqual(COMMAND_NAMES);
  });

  it('registers just the command a command line runs', async () => {
    expect((await buildProgram(['node', 'cairn', 'get', 'servers'])).commands.map((c) => c.name())).toEqual(['get']);
    expect((await buildProgram(['node', 'cairn', '--version'])).commands).toEqual([]);
  });
});
