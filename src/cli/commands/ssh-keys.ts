/**
 * @module `cairn ssh-keys runtime [--rotate | --retire-previous] [--tenant NAME]`: cairn's own SSH
 * key of a tenant on this data dir (the line to put in a host's authorized_keys, and its
 * fingerprint), its rotation (the previous key stays valid until retired) and the retirement of
 * the previous key. Rotations and retirements are audited (actor `cli`), as through the API.
 */
import type { Command } from 'commander';
import { DEFAULT_TENANT_NAME } from '../../auth/user-accounts.js';
import { RuntimeKeys, type RuntimeKeySet } from '../../ssh-keys/runtime-key.js';
import { Store } from '../../store/store.js';
import { CliError } from '../cli-error.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';

interface RuntimeOptions {
  dataDir?: string;
  tenant: string;
  rotate?: boolean;
  retirePrevious?: boolean;
}

export function registerSshKeysCommand(program: Command): void {
  const sshKeys = program.command('ssh-keys').description("cairn's own SSH key of a tenant (SSH keys of servers are resources: cairn get sshkeys)");
  addDataDirOption(
    sshKeys
      .command('runtime')
      .description("show cairn's SSH key of a tenant (the line for a host's authorized_keys), rotate it, or retire the key a rotation replaced")
      .option('--tenant <name>', 'the tenant', DEFAULT_TENANT_NAME)
      .option('--rotate', 'make a new key; the current one stays valid until --retire-previous')
      .option('--retire-previous', 'forget the key the last rotation replaced (once every host accepts the new one)'),
  ).action((options: RuntimeOptions) => {
    if (options.rotate && options.retirePrevious) throw new CliError('give --rotate or --retire-previous, not both');
    const store = Store.open(resolveDataDir(options.dataDir));
    try {
      const tenant = store.tenants.findByName(options.tenant);
      if (!tenant) throw new CliError(`no tenant is named ${JSON.stringify(options.tenant)}`);
      const keys = new RuntimeKeys(store);
      if (options.rotate) {
        const rotated = store.transaction(() => {
          const next = keys.rotateRuntimeKey(tenant.id);
          store.auditLog.append({ tenant: tenant.id, actor: 'cli', action: 'ssh_runtime_key.rotate', target: `ssh-runtime-key:${next.current.fingerprint}` });
          return next;
        });
        console.log(`rotated: new servers get both keys until you retire the previous one (cairn ssh-keys runtime --retire-previous)`);
        print(rotated);
        return;
      }
      if (options.retirePrevious) {
        const retired = store.transaction(() => {
          const gone = keys.retirePreviousRuntimeKey(tenant.id);
          if (gone) store.auditLog.append({ tenant: tenant.id, actor: 'cli', action: 'ssh_runtime_key.retire', target: `ssh-runtime-key:${gone.fingerprint}` });
          return gone;
        });
        console.log(retired ? `retired the previous key ${retired.fingerprint}` : 'no rotation is in progress; nothing to retire');
        print(keys.runtimeKeys(tenant.id));
        return;
      }
      print(keys.runtimeKeys(tenant.id));
    } finally {
      store.close();
    }
  });
}

function print(keys: RuntimeKeySet): void {
  console.log(`current:  ${keys.current.fingerprint}`);
  console.log(keys.current.publicKey);
  if (keys.previous) {
    console.log(`previous: ${keys.previous.fingerprint} (still valid until retired)`);
    console.log(keys.previous.publicKey);
  }
}
