/**
 * @module `cairn validate -f PATH...`: parses and validates manifests without touching any
 * state. Exit 0 when valid, 1 with every error (file:line:column, resource, field, reason).
 */
import type { Command } from 'commander';
import { displayName } from '../../model/resource.js';
import { readManifests } from '../manifest-input.js';

export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description('check manifests against the schemas and each other')
    .requiredOption('-f, --file <path...>', 'manifest files or directories (- for stdin)')
    .option('-q, --quiet', 'print nothing when valid')
    .action(async (options: { file: string[]; quiet?: boolean }) => {
      const manifests = await readManifests(options.file);
      if (!options.quiet) {
        for (const m of manifests) console.log(`${displayName({ kind: m.kind, namespace: m.metadata.namespace, name: m.metadata.name })}: valid`);
        console.log(`${manifests.length} manifest${manifests.length === 1 ? '' : 's'} valid`);
      }
    });
}
