import type { Options } from 'yargs';
import { UsageError } from '../../domain/errors.js';
import { readUserFile } from './user-files.js';

/** `--passphrase`, `--passphrase-file` and `$PKG_PASSPHRASE`: the last two keep the secret out of `ps`, which shows a reactor's arguments for its whole life. */
export const PASSPHRASE_OPTIONS = {
  passphrase: { type: 'string', describe: 'passphrase of a protected OpenPGP key; visible to other users in the process list: prefer --passphrase-file or $PKG_PASSPHRASE' },
  'passphrase-file': { type: 'string', describe: 'file whose first line is the passphrase of a protected OpenPGP key' },
} as const satisfies Record<string, Options>;

export async function readPassphrase(argv: { passphrase?: string; 'passphrase-file'?: string }, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (argv.passphrase !== undefined && argv['passphrase-file'] !== undefined) throw new UsageError('give --passphrase or --passphrase-file, not both');
  if (argv.passphrase !== undefined) return argv.passphrase;
  if (argv['passphrase-file'] !== undefined) {
    const text = (await readUserFile(argv['passphrase-file'], '--passphrase-file')).toString('utf8');
    return text.split(/\r?\n/, 1)[0]!;
  }
  return env.PKG_PASSPHRASE;
}
