/**
 * @module `cairn get KIND [NAME] [-o table|json|yaml]`: what the store holds, with status.
 */
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { KINDS, parseKindName } from '../../model/kinds.js';
import { DEFAULT_TENANT } from '../../model/resource.js';
import { Store } from '../../store/store.js';
import { CliError } from '../cli-error.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';
import { renderTable, toResourceObject } from '../resource-view.js';

interface GetOptions {
  output: string;
  namespace?: string;
  dataDir?: string;
}

export function registerGetCommand(program: Command): void {
  addDataDirOption(
    program
      .command('get')
      .description('list resources of a kind, or show one')
      .argument('<kind>', `one of ${KINDS.join(', ')} (singular, plural or lower case)`)
      .argument('[name]', 'a resource name')
      .option('-o, --output <format>', 'table, json or yaml', 'table')
      .option('-n, --namespace <namespace>', 'only this namespace'),
  ).action((kindText: string, name: string | undefined, options: GetOptions) => {
    const kind = parseKindName(kindText);
    if (!kind) throw new CliError(`unknown kind "${kindText}"; kinds are ${KINDS.join(', ')}`);
    if (!['table', 'json', 'yaml'].includes(options.output)) throw new CliError(`unknown output format "${options.output}"; use table, json or yaml`);
    const store = Store.open(resolveDataDir(options.dataDir));
    try {
      const resources = store.resources.list({ tenant: DEFAULT_TENANT, kind, namespace: options.namespace, name });
      if (name && resources.length === 0) throw new CliError(`${kind} "${name}" not found`);
      if (options.output === 'table') {
        process.stdout.write(resources.length === 0 ? `No ${kind} resources found.\n` : renderTable(kind, resources));
        return;
      }
      const objects = resources.map(toResourceObject);
      const document = name ? objects[0] : { items: objects };
      process.stdout.write(options.output === 'json' ? `${JSON.stringify(document, null, 2)}\n` : stringify(document));
    } finally {
      store.close();
    }
  });
}
