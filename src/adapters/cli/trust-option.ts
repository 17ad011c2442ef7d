import type { Options } from 'yargs';
import type { TrustFile } from '../../application/ports/signature-scheme.js';
import { readUserFile } from './user-files.js';

/** `--trust FILE` (repeatable), else `$PKG_TRUST` (files separated by `:`, as in PATH). */
export const TRUST_OPTION = {
  trust: {
    type: 'string',
    array: true,
    describe: 'public key or certificate (PEM or OpenPGP) a package must be signed with; repeatable. Unsigned packages and other signers are refused',
    defaultDescription: '$PKG_TRUST (files separated by ":")',
  },
} as const satisfies Record<string, Options>;

export async function readTrustFiles(given: readonly string[] | undefined, env: NodeJS.ProcessEnv = process.env): Promise<TrustFile[]> {
  const paths = given?.length ? given : (env.PKG_TRUST ?? '').split(':').filter((path) => path !== '');
  return Promise.all(paths.map(async (path) => ({ name: path, bytes: await readUserFile(path, '--trust') })));
}
