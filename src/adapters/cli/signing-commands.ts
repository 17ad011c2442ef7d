import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { UsageError } from '../../domain/errors.js';
import type { DecryptPackage } from '../../application/use-cases/decrypt-package.js';
import { plaintextScratch, type EncryptPackage } from '../../application/use-cases/encrypt-package.js';
import type { SignPackage } from '../../application/use-cases/sign-package.js';
import type { VerifySignature } from '../../application/use-cases/verify-signature.js';
import type { DecryptionKeys } from '../../application/ports/envelope-crypto.js';
import { JSON_OPTION, printJson, type CliOutput } from './cli-output.js';
import { readUserFile } from './user-files.js';
import { PASSPHRASE_OPTIONS, readPassphrase } from './passphrase-option.js';
import { TRUST_OPTION, readTrustFiles } from './trust-option.js';
import type { LazyFields } from './lazy.js';
import { unfinished } from '../shared/unfinished-paths.js';

/** The signing commands' use cases, each built when its command runs. */
export type SigningUseCases = LazyFields<{
  sign: SignPackage;
  verifySignature: VerifySignature;
  encrypt: EncryptPackage;
  decrypt: DecryptPackage;
}>;

/** `--private-key`, `--key` and the passphrase options, read into the keys that open encrypted packages (decrypt, serve). */
export async function readDecryptionKeys(argv: { 'private-key'?: string; key?: string; passphrase?: string; 'passphrase-file'?: string }): Promise<DecryptionKeys> {
  const passphrase = await readPassphrase(argv);
  return {
    ...(argv['private-key'] ? { privateKey: await readUserFile(argv['private-key'], '--private-key') } : {}),
    ...(argv.key ? { openpgpKey: await readUserFile(argv.key, '--key') } : {}),
    ...(passphrase !== undefined ? { passphrase } : {}),
  };
}

export function signingCommands(yargs: Argv, useCases: SigningUseCases, output: CliOutput, exit: (code: number) => void): Argv {
  return yargs
    .command(
      'sign <path>',
      'Sign a package directory or .cap (RSA-SHA256, or OpenPGP with --openpgp)',
      (y) =>
        y
          .positional('path', { type: 'string', demandOption: true, describe: 'package directory or .cap' })
          .option('key', { type: 'string', demandOption: true, describe: 'private key PEM (RSA, 2048 bits or more), or with --openpgp an OpenPGP secret key, armored or binary' })
          .option('cert', { type: 'string', describe: 'X.509 certificate PEM matching --key; its public key is embedded' })
          .option('openpgp', { type: 'boolean', default: false, describe: 'sign with OpenPGP (armored detached SHA-256 signature)' })
          .options(PASSPHRASE_OPTIONS)
          .option('output', { alias: 'o', type: 'string', describe: 'for a .cap: write the signed package here instead of replacing it' })
          .option('force', { alias: 'f', type: 'boolean', default: false, describe: 'overwrite an existing --output' })
          .options(JSON_OPTION),
      async (argv) => {
        if (argv.cert && argv.openpgp) throw new UsageError('--cert is for RSA/X.509 signatures, not --openpgp');
        const passphrase = await readPassphrase(argv);
        const result = await useCases.sign().execute({
          location: argv.path,
          key: { key: await readUserFile(argv.key, '--key'), ...(argv.cert ? { certificate: await readUserFile(argv.cert, '--cert') } : {}), ...(passphrase !== undefined ? { passphrase } : {}) },
          openpgp: argv.openpgp,
          ...(argv.output ? { output: resolve(argv.output) } : {}),
          force: argv.force,
        });
        if (argv.json) return printJson(output, result);
        output.out(`Signed ${result.path} (${result.scheme}, ${result.files} files; public key ${result.publicKeyFile})`);
      },
    )
    .command(
      'verify-signature <path>',
      'Verify the signature of a package directory or .cap; exit 1 when unsigned or not matching',
      (y) =>
        y
          .positional('path', { type: 'string', demandOption: true, describe: 'package directory or .cap' })
          .option('cert', { type: 'string', describe: 'certificate or public key the package must be signed with (one more --trust)' })
          .options(TRUST_OPTION)
          .option('openpgp', { type: 'boolean', default: false, describe: 'verify as OpenPGP whatever security.json says' })
          .options(JSON_OPTION),
      async (argv) => {
        const trust = [...(argv.cert ? [{ name: argv.cert, bytes: await readUserFile(argv.cert, '--cert') }] : []), ...(await readTrustFiles(argv.trust))];
        const report = await useCases.verifySignature().execute(argv.path, { openpgp: argv.openpgp, trust });
        if (argv.json) printJson(output, report);
        else if (!report.valid) output.out(`FAIL signature${report.scheme ? ` (${report.scheme})` : ''}: ${report.reason}`);
        else if (report.trusted) output.out(`PASS signature (${report.scheme}): ${report.source}, signed by trusted key ${report.signer}`);
        else {
          output.out(`PASS signature (${report.scheme}): ${report.source}, signed by key ${report.signer}`);
          output.out('NOTE no trusted key given (--trust, --cert or PKG_TRUST): this proves the package is intact, not who signed it; anyone can re-sign a package with a key of their own');
        }
        if (!report.valid) exit(1);
      },
    )
    .command(
      'encrypt <path>',
      'Encrypt a package directory or .cap (AES-256-GCM; the key wrapped with RSA-OAEP, or OpenPGP with --openpgp)',
      (y) =>
        y
          .positional('path', { type: 'string', demandOption: true, describe: 'package directory or .cap' })
          .option('public-key', { type: 'string', describe: 'recipient RSA public key PEM or certificate' })
          .option('openpgp', { type: 'boolean', default: false, describe: 'wrap the key for an OpenPGP recipient' })
          .option('recipient', { type: 'string', describe: 'with --openpgp: the recipient OpenPGP public key file' })
          .option('output', { alias: 'o', type: 'string', demandOption: true, describe: 'the encrypted .cap to write' })
          .option('force', { alias: 'f', type: 'boolean', default: false, describe: 'overwrite an existing output' })
          .options(JSON_OPTION),
      async (argv) => {
        // One envelope, one recipient: the other flag would be ignored without a word.
        if (argv.openpgp ? argv['public-key'] !== undefined : argv.recipient !== undefined) throw new UsageError('--public-key is the RSA recipient, --openpgp --recipient the OpenPGP one: give one of them');
        const recipient = argv.openpgp ? argv.recipient : argv['public-key'];
        if (!recipient) throw new UsageError(argv.openpgp ? '--openpgp needs --recipient <OpenPGP public key file>' : 'give --public-key <PEM public key or certificate>, or --openpgp --recipient <public key file>');
        const recipientKey = await readUserFile(recipient, argv.openpgp ? '--recipient' : '--public-key');
        const scratch = plaintextScratch(resolve(argv.output));
        // A directory's packed plaintext waits there while it is encrypted: a Ctrl-C meanwhile removes it.
        unfinished.add(scratch);
        const result = await useCases
          .encrypt()
          .execute({ location: argv.path, recipient: recipientKey, openpgp: argv.openpgp, output: resolve(argv.output), force: argv.force })
          .finally(() => unfinished.delete(scratch));
        if (argv.json) return printJson(output, result);
        output.out(`Encrypted ${argv.path} into ${result.path} (AES-256-GCM, key management ${result.keyManagement})`);
      },
    )
    .command(
      'decrypt <cap>',
      'Decrypt an encrypted .cap (key management detected from its envelope)',
      (y) =>
        y
          .positional('cap', { type: 'string', demandOption: true, describe: 'encrypted .cap' })
          .option('private-key', { type: 'string', describe: 'RSA private key PEM (RSA-OAEP envelopes)' })
          .option('key', { type: 'string', describe: 'OpenPGP secret key, armored or binary (OpenPGP envelopes)' })
          .options(PASSPHRASE_OPTIONS)
          .option('openpgp', { type: 'boolean', default: false, describe: 'accepted for symmetry; the envelope says which key it needs' })
          .option('output', { alias: 'o', type: 'string', describe: 'plaintext .cap to write (default: <name>-decrypted.cap here)' })
          .option('force', { alias: 'f', type: 'boolean', default: false, describe: 'overwrite an existing output' })
          .options(JSON_OPTION),
      async (argv) => {
        const result = await useCases.decrypt().execute({
          location: argv.cap,
          keys: await readDecryptionKeys(argv),
          ...(argv.output ? { output: resolve(argv.output) } : {}),
          directory: resolve('.'),
          force: argv.force,
        });
        if (argv.json) return printJson(output, result);
        output.out(`Decrypted ${result.name} ${result.version} into ${result.path}`);
      },
    );
}
