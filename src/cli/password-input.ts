/**
 * @module Reading a password for a command: the first line of stdin when stdin is not a terminal
 * (`echo "$PW" | cairn users add ...`), else a prompt on the terminal that does not echo.
 */
import { CliError } from './cli-error.js';

const MAX_BYTES = 64 * 1024;

export async function readPassword(prompt: string, input: NodeJS.ReadStream = process.stdin): Promise<string> {
  return input.isTTY ? promptHidden(prompt, input) : firstLine(input);
}

async function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  input.setEncoding('utf8');
  for await (const chunk of input) {
    text += String(chunk);
    if (text.includes('\n') || text.length > MAX_BYTES) break;
  }
  const line = text.split('\n')[0]?.replace(/\r$/, '') ?? '';
  if (line === '') throw new CliError('no password on stdin: give it as the first line (e.g. printf "%s\\n" "$PASSWORD" | cairn users add ...), or run in a terminal to be asked');
  return line;
}

function promptHidden(prompt: string, input: NodeJS.ReadStream): Promise<string> {
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  let value = '';
  return new Promise((resolve, reject) => {
    const finish = (error?: Error): void => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (data: string): void => {
      for (const char of data) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new CliError('cancelled', 130));
        if (char === '\u007f' || char === '\b') value = [...value].slice(0, -1).join('');
        else if (char >= ' ') value += char;
      }
    };
    input.on('data', onData);
  });
}
