import { NodeHasher } from '../../src/adapters/crypto/node-hasher.js';
import { ReactorServer } from '../../src/adapters/http/reactor-server.js';
import { InProcessVerifier } from '../../src/application/integrity/in-process-verifier.js';
import { ByteBudget } from '../../src/application/serving/byte-budget.js';
import { LoadPackage } from '../../src/application/serving/load-package.js';
import { Reactor, type MountRequest, type ReactorSettings } from '../../src/application/serving/reactor.js';
import type { PackageOpener } from '../../src/application/ports/package-source.js';
import type { OverlayStore } from '../../src/application/ports/overlay-store.js';
import { AjvSchemaValidator } from '../../src/adapters/schema/ajv-schema-validator.js';
import { SqlJsTableReader } from '../../src/adapters/sqlite/sqljs-table-reader.js';
import { ZipArchiveWriter } from '../../src/adapters/archive/zip-archive-writer.js';
import { PackPipeline } from '../../src/application/package/pack-pipeline.js';
import { PackPackage } from '../../src/application/use-cases/pack-package.js';
import { SavePackage } from '../../src/application/use-cases/save-package.js';
import { MemoryOverlayStore } from '../fakes/memory-overlay-store.js';
import { SignatureCheck } from '../../src/application/signing/signature-check.js';
import { RsaSignatureScheme } from '../../src/adapters/crypto/rsa-signature-scheme.js';
import { OpenPgpSignatureScheme } from '../../src/adapters/crypto/openpgp-signature-scheme.js';
import { RsaOaepKeyWrapping } from '../../src/adapters/crypto/rsa-oaep-key-wrapping.js';
import { OpenPgpKeyWrapping } from '../../src/adapters/crypto/openpgp-key-wrapping.js';
import { AesGcmContentCipher } from '../../src/adapters/crypto/aes-gcm-content-cipher.js';
import { FsFileWriter } from '../../src/adapters/fs/fs-file-writer.js';
import { FsLocalFiles } from '../../src/adapters/fs/fs-local-files.js';
import { NodeAuthCrypto } from '../../src/adapters/crypto/node-auth-crypto.js';
import { HtpasswdPasswordHashes } from '../../src/adapters/crypto/htpasswd-password-hashes.js';
import { FsSessionRevocationStore } from '../../src/adapters/fs/fs-session-revocations.js';
import { FetchOAuth2Provider } from '../../src/adapters/oauth2/fetch-oauth2-provider.js';
import type { AuthDependencies } from '../../src/application/auth/reactor-auth.js';

export const hasher = new NodeHasher();
const signatures = new SignatureCheck({ rsa: new RsaSignatureScheme(), openpgp: new OpenPgpSignatureScheme() }, hasher);

export const SETTINGS: ReactorSettings = { port: 0, host: '127.0.0.1', cacheControl: 'public, max-age=31536000', workdir: '/tmp/unused' };

/** A reactor over the given opener, with its server (not listening: supertest drives it). */
export async function startReactor(
  opener: PackageOpener,
  requests: MountRequest[],
  settings: Partial<ReactorSettings> = {},
  overlays: OverlayStore = new MemoryOverlayStore(),
  auth: Partial<AuthDependencies> = {},
) {
  const { reactor, failures, warnings } = await Reactor.start(requests, { ...SETTINGS, ...settings }, {
    loader: new LoadPackage(opener, hasher, new InProcessVerifier(hasher), new ByteBudget(16 * 1024 * 1024), overlays, {
      signatures,
      wrappings: { rsa: new RsaOaepKeyWrapping(), openpgp: new OpenPgpKeyWrapping() },
      cipher: new AesGcmContentCipher(),
      files: new FsFileWriter(),
    }),
    verifier: new InProcessVerifier(hasher),
    hasher,
    clock: { now: () => new Date() },
    readers: { schemas: new AjvSchemaValidator(), sqlite: new SqlJsTableReader() },
    saver: new SavePackage(new PackPackage(opener, new PackPipeline(new ZipArchiveWriter(), hasher))),
    signatures,
    auth: { files: new FsLocalFiles(), writer: new FsFileWriter(), crypto: new NodeAuthCrypto(), passwords: new HtpasswdPasswordHashes(), provider: new FetchOAuth2Provider(), revocations: new FsSessionRevocationStore(), ...auth },
  });
  const lines: string[] = [];
  const server = new ReactorServer(reactor, { log: (text) => void lines.push(...text.trim().split('\n')) });
  return { reactor, failures, warnings, server, http: server.httpServer, lines, stop: () => server.close().then(() => reactor.close()) };
}

/** security.json content for a set of files, as pack writes it. */
export function securityFor(files: Record<string, string | Uint8Array>): string {
  const checksums = Object.fromEntries(Object.entries(files).map(([path, bytes]) => [path, hasher.sha256(bytes)]));
  return JSON.stringify({ security: { integrityChecks: { checksums } } });
}
