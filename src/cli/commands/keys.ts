/**
 * @module `cairn keys rotate` (re-encrypt every secret, and re-wrap every sealed backup's data key, under a new master key) and `cairn keys
 * rotate-signing` (a new key signs access tokens; the old one verifies until its tokens expire,
 * so nobody is signed out).
 */
import type { Command } from 'commander';
import { AuthService } from '../../auth/auth-service.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../auth/signing-keyring.js';
import type { MasterKeyRotation } from '../../store/master-key-rotation.js';
import { Store } from '../../store/store.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';

interface KeysOptions {
  dataDir?: string;
}

export function registerKeysCommand(program: Command): void {
  const keys = program.command('keys').description('rotate the master key of secrets at rest, or the key that signs access tokens');
  addDataDirOption(
    keys
      .command('rotate')
      .description('re-encrypt every secret (and re-wrap the data keys of sealed backups) under a new master key (from the key file) or the first key of CAIRN_MASTER_KEY'),
  ).action((options: KeysOptions) => {
    const store = Store.open(resolveDataDir(options.dataDir));
    try {
      console.log(describeRotation(store.rotateMasterKey()));
    } finally {
      store.close();
    }
  });

  addDataDirOption(keys.command('rotate-signing').description('make a new key sign access tokens; tokens signed before stay valid until they expire')).action(
    async (options: KeysOptions) => {
      const store = Store.open(resolveDataDir(options.dataDir));
      try {
        const previous = store.signingKeys.active();
        const auth = await AuthService.open(store);
        if (!previous) {
          console.log(`there was no signing key yet; generated the first one, ${store.signingKeys.active()?.kid}`);
          return;
        }
        const kid = auth.rotateSigningKey();
        const until = new Date(Date.now() + ACCESS_TOKEN_TTL_SECONDS * 1000).toISOString();
        console.log(`access tokens are now signed with key ${kid}`);
        console.log(`the previous key ${previous.kid} still verifies the tokens it signed (until about ${until}); nobody is signed out`);
      } finally {
        store.close();
      }
    },
  );
}

function describeRotation(r: MasterKeyRotation): string {
  const backups = r.rewrappedBackups > 0 ? ` and re-wrapped the data key of ${r.rewrappedBackups} sealed backup${r.rewrappedBackups === 1 ? '' : 's'}` : '';
  const count = `re-encrypted ${r.reencrypted} secret${r.reencrypted === 1 ? '' : 's'}${backups}`;
  if (r.source === 'file') {
    const dropped = r.droppedKeyIds.length > 0 ? `; removed the old key${r.droppedKeyIds.length === 1 ? '' : 's'} ${r.droppedKeyIds.join(', ')} from it` : '';
    return `${count} under the new master key ${r.activeKeyId} (key file ${r.path})${dropped}`;
  }
  const lines = [`${count} under master key ${r.activeKeyId}, the first key of CAIRN_MASTER_KEY`];
  if (r.removableKeyIds.length > 0) {
    lines.push(`no secret needs ${r.removableKeyIds.join(', ')} any more: you can drop ${r.removableKeyIds.length === 1 ? 'it' : 'them'} from CAIRN_MASTER_KEY`);
  } else if (r.reencrypted === 0) {
    lines.push('every secret was under it already; to rotate, set CAIRN_MASTER_KEY=<new key>,<current key> and run this again');
  }
  if (r.path) lines.push(`the key file ${r.path} is no longer needed; delete it once you have a backup of CAIRN_MASTER_KEY`);
  return lines.join('\n');
}
