import { Container, type ServiceIdentifier } from 'inversify';
import { TOKENS } from '../application/ports/tokens.js';
import { PackPipeline } from '../application/package/pack-pipeline.js';
import { InspectPackage } from '../application/use-cases/inspect-package.js';
import { PackPackage } from '../application/use-cases/pack-package.js';
import { UnpackPackage } from '../application/use-cases/unpack-package.js';
import { ValidatePackage } from '../application/use-cases/validate-package.js';
import type { ArchiveWriter } from '../application/ports/archive-writer.js';
import type { DirectoryWriter } from '../application/ports/directory-writer.js';
import type { Hasher } from '../application/ports/hasher.js';
import type { PackageOpener } from '../application/ports/package-source.js';
import type { SchemaValidator } from '../application/ports/schema-validator.js';
import { ZipArchiveWriter } from '../adapters/archive/zip-archive-writer.js';
import { NodeHasher } from '../adapters/crypto/node-hasher.js';
import { FsDirectoryWriter } from '../adapters/fs/fs-directory-writer.js';
import { AjvSchemaValidator } from '../adapters/schema/ajv-schema-validator.js';
import { LocalPackageOpener } from './local-package-opener.js';
import { HttpReactorHost } from './http-reactor-host.js';
import { ByteBudget } from '../application/serving/byte-budget.js';
import { LoadPackage } from '../application/serving/load-package.js';
import { InProcessVerifier } from '../application/integrity/in-process-verifier.js';
import type { Clock } from '../application/ports/clock.js';
import type { PackageVerifier } from '../application/ports/package-verifier.js';
import type { ReactorHost } from '../application/ports/reactor-host.js';
import { SystemClock } from '../adapters/system/system-clock.js';
import { ProcessVerifier } from './workers/process-verifier.js';
import { FetchHttpProbe } from '../adapters/http/fetch-http-probe.js';
import type { HttpProbe } from '../application/ports/http-probe.js';
import { TestPackage } from '../application/use-cases/test-package.js';
import { EntryDigester } from '../application/integrity/entry-digester.js';
import { SavePackage } from '../application/use-cases/save-package.js';
import type { OverlayStore } from '../application/ports/overlay-store.js';
import type { SqliteReader } from '../application/ports/sqlite-reader.js';
import { FsOverlayStore } from '../adapters/fs/fs-overlay-store.js';
import { SqlJsTableReader } from '../adapters/sqlite/sqljs-table-reader.js';
import type { ContentCipher } from '../application/ports/envelope-crypto.js';
import type { FileWriter } from '../application/ports/file-writer.js';
import type { KeyWrappings, SignatureSchemes } from '../application/signing/signature-schemes.js';
import { SignatureCheck } from '../application/signing/signature-check.js';
import { SignPackage } from '../application/use-cases/sign-package.js';
import { VerifySignature } from '../application/use-cases/verify-signature.js';
import { EncryptPackage } from '../application/use-cases/encrypt-package.js';
import { DecryptPackage } from '../application/use-cases/decrypt-package.js';
import { RsaSignatureScheme } from '../adapters/crypto/rsa-signature-scheme.js';
import { OpenPgpSignatureScheme } from '../adapters/crypto/openpgp-signature-scheme.js';
import { RsaOaepKeyWrapping } from '../adapters/crypto/rsa-oaep-key-wrapping.js';
import { OpenPgpKeyWrapping } from '../adapters/crypto/openpgp-key-wrapping.js';
import { AesGcmContentCipher } from '../adapters/crypto/aes-gcm-content-cipher.js';
import { FsFileWriter } from '../adapters/fs/fs-file-writer.js';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreDirectories } from '../application/ports/package-store.js';
import type { Warnings } from '../application/ports/warnings.js';
import { StoreCatalog } from '../application/package/store-catalog.js';
import type { RegistryClients } from '../application/ports/registry-client.js';
import { FsStoreDirectories } from '../adapters/fs/fs-store-directory.js';
import { StderrWarnings } from '../adapters/cli/stderr-warnings.js';
import { LocalRegistryClients } from './registry-clients.js';
import { DependencyLoader } from '../application/package/dependency-loader.js';
import { InstallPackage } from '../application/use-cases/install-package.js';
import { PushPackage } from '../application/use-cases/push-package.js';
import { DiffPackages } from '../application/use-cases/diff-packages.js';
import { InitPackage } from '../application/use-cases/init-package.js';
import { IndexRegistry } from '../application/use-cases/index-registry.js';
import { SearchRegistry } from '../application/use-cases/search-registry.js';
import { UninstallPackage } from '../application/use-cases/uninstall-package.js';
import { FsPackageTemplates } from '../adapters/fs/fs-package-templates.js';
import { FsWorkdirs } from '../adapters/fs/fs-workdirs.js';
import { FsSourceWatcher } from '../adapters/fs/fs-source-watcher.js';
import { LazyReferenceScanner } from '../adapters/content/lazy-reference-scanner.js';
import { FsSessionRevocationStore } from '../adapters/fs/fs-session-revocations.js';
import { templatesDirectory } from './toolkit-root.js';
import type { LocalFiles } from '../application/ports/local-files.js';
import type { AuthCrypto } from '../application/ports/auth-crypto.js';
import type { PasswordHashes } from '../application/ports/password-hashes.js';
import type { OAuth2Provider } from '../application/ports/oauth2-provider.js';
import { FsLocalFiles } from '../adapters/fs/fs-local-files.js';
import { NodeAuthCrypto } from '../adapters/crypto/node-auth-crypto.js';
import { HtpasswdPasswordHashes } from '../adapters/crypto/htpasswd-password-hashes.js';
import { FetchOAuth2Provider } from '../adapters/oauth2/fetch-oauth2-provider.js';

/** Adapter instances to use instead of the production ones, keyed by port token. */
export type PortOverrides = Partial<Record<(typeof TOKENS)[keyof typeof TOKENS], unknown>>;

/**
 * The one place that knows every part: ports are bound to adapters, use cases are
 * built from ports. Tests pass overrides to swap an adapter, never a module.
 */
/** Bytes of file bodies the reactor keeps in memory across all its packages. */
export const DEFAULT_MEMORY_BUDGET = 32 * 1024 * 1024;

export function createContainer(overrides: PortOverrides = {}, options: { memoryBudget?: number } = {}): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  const port = <T>(token: symbol, make: () => T) => {
    const value = token in overrides ? overrides[token as keyof PortOverrides] : make();
    container.bind<T>(token).toConstantValue(value as T);
  };
  port<PackageOpener>(TOKENS.PackageOpener, () => new LocalPackageOpener());
  port<ArchiveWriter>(TOKENS.ArchiveWriter, () => new ZipArchiveWriter());
  port<Hasher>(TOKENS.Hasher, () => new NodeHasher());
  port<SchemaValidator>(TOKENS.SchemaValidator, () => new AjvSchemaValidator());
  port<DirectoryWriter>(TOKENS.DirectoryWriter, () => new FsDirectoryWriter());

  port<Clock>(TOKENS.Clock, () => new SystemClock());
  port<HttpProbe>(TOKENS.HttpProbe, () => new FetchHttpProbe());
  port<OverlayStore>(TOKENS.OverlayStore, () => new FsOverlayStore());
  port<SqliteReader>(TOKENS.SqliteReader, () => new SqlJsTableReader());
  port<SignatureSchemes>(TOKENS.SignatureSchemes, () => ({ rsa: new RsaSignatureScheme(), openpgp: new OpenPgpSignatureScheme() }));
  port<KeyWrappings>(TOKENS.KeyWrappings, () => ({ rsa: new RsaOaepKeyWrapping(), openpgp: new OpenPgpKeyWrapping() }));
  port<ContentCipher>(TOKENS.ContentCipher, () => new AesGcmContentCipher());
  port<FileWriter>(TOKENS.FileWriter, () => new FsFileWriter());
  port<RegistryClients>(TOKENS.RegistryClients, () => new LocalRegistryClients());
  port<StoreDirectories>(TOKENS.StoreDirectories, () => new FsStoreDirectories());
  port<Warnings>(TOKENS.Warnings, () => new StderrWarnings());
  port<LocalFiles>(TOKENS.LocalFiles, () => new FsLocalFiles());
  port<AuthCrypto>(TOKENS.AuthCrypto, () => new NodeAuthCrypto());
  port<PasswordHashes>(TOKENS.PasswordHashes, () => new HtpasswdPasswordHashes());
  port<OAuth2Provider>(TOKENS.OAuth2Provider, () => new FetchOAuth2Provider());
  port<PackageVerifier>(TOKENS.PackageVerifier, () => new ProcessVerifier(new InProcessVerifier(container.get(TOKENS.Hasher))));

  const get = <T>(id: ServiceIdentifier<T>) => container.get<T>(id);
  /** Memory for file bodies across every mounted package. */
  container.bind(ByteBudget).toConstantValue(new ByteBudget(options.memoryBudget ?? DEFAULT_MEMORY_BUDGET));
  container.bind(SignatureCheck).toDynamicValue(() => new SignatureCheck(get(TOKENS.SignatureSchemes), get(TOKENS.Hasher)));
  container.bind(LoadPackage).toDynamicValue(
    () =>
      new LoadPackage(get(TOKENS.PackageOpener), get(TOKENS.Hasher), get(TOKENS.PackageVerifier), get(ByteBudget), get(TOKENS.OverlayStore), {
        signatures: get(SignatureCheck),
        wrappings: get(TOKENS.KeyWrappings),
        cipher: get(TOKENS.ContentCipher),
        files: get(TOKENS.FileWriter),
      }, { loader: get(DependencyLoader), installer: get(InstallPackage) }),
  );
  container.bind(StoreCatalog).toDynamicValue(() => new StoreCatalog(get(TOKENS.StoreDirectories), get(TOKENS.PackageOpener), get(TOKENS.Warnings)));
  container.bind(InstallPackage).toDynamicValue(() => new InstallPackage(get(TOKENS.RegistryClients), get(StoreCatalog), get(TOKENS.PackageOpener), get(TOKENS.Hasher)));
  container.bind(PushPackage).toDynamicValue(() => new PushPackage(get(TOKENS.PackageOpener), get(ValidatePackage), get(TOKENS.RegistryClients), get(TOKENS.Hasher)));
  container
    .bind(DependencyLoader)
    .toDynamicValue(
      () =>
        new DependencyLoader(get(TOKENS.PackageOpener), get(TOKENS.Hasher), get(TOKENS.FileWriter), get(StoreCatalog), get(TOKENS.RegistryClients), get(InstallPackage), () =>
          join(tmpdir(), `pkg-dependency-${randomUUID()}.cap`),
        ),
    );
  container.bind(SavePackage).toDynamicValue(() => new SavePackage(get(PackPackage)));
  container.bind<ReactorHost>(TOKENS.ReactorHost).toDynamicValue(
    () =>
      new HttpReactorHost(
        {
          loader: get(LoadPackage),
          verifier: get(TOKENS.PackageVerifier),
          hasher: get(TOKENS.Hasher),
          clock: get(TOKENS.Clock),
          readers: { schemas: get(TOKENS.SchemaValidator), sqlite: get(TOKENS.SqliteReader) },
          saver: get(SavePackage),
          signatures: get(SignatureCheck),
          watcher: new FsSourceWatcher(),
          auth: {
            files: get(TOKENS.LocalFiles),
            writer: get(TOKENS.FileWriter),
            crypto: get(TOKENS.AuthCrypto),
            passwords: get(TOKENS.PasswordHashes),
            provider: get(TOKENS.OAuth2Provider),
            revocations: new FsSessionRevocationStore(),
          },
        },
        new FsWorkdirs(),
      ),
  );
  container.bind(EntryDigester).toDynamicValue(() => new EntryDigester(get(TOKENS.Hasher), new LazyReferenceScanner()));
  container.bind(PackPipeline).toDynamicValue(() => new PackPipeline(get(TOKENS.ArchiveWriter), get(TOKENS.Hasher)));
  container.bind(PackPackage).toDynamicValue(() => new PackPackage(get(TOKENS.PackageOpener), get(PackPipeline), { dependencies: get(DependencyLoader), hasher: get(TOKENS.Hasher) }));
  container.bind(UnpackPackage).toDynamicValue(() => new UnpackPackage(get(TOKENS.PackageOpener), get(TOKENS.DirectoryWriter), get(TOKENS.Hasher)));
  container.bind(ValidatePackage).toDynamicValue(() => new ValidatePackage(get(TOKENS.PackageOpener), get(EntryDigester), get(TOKENS.SchemaValidator), get(SignatureCheck), get(DependencyLoader)));
  container
    .bind(SignPackage)
    .toDynamicValue(() => new SignPackage(get(TOKENS.PackageOpener), get(TOKENS.SignatureSchemes), get(PackPipeline), get(TOKENS.FileWriter), get(TOKENS.Hasher)));
  container.bind(VerifySignature).toDynamicValue(() => new VerifySignature(get(TOKENS.PackageOpener), get(SignatureCheck)));
  container
    .bind(EncryptPackage)
    .toDynamicValue(
      () => new EncryptPackage(get(TOKENS.PackageOpener), get(PackPackage), get(TOKENS.ArchiveWriter), get(TOKENS.FileWriter), get(TOKENS.KeyWrappings), get(TOKENS.ContentCipher)),
    );
  container.bind(DecryptPackage).toDynamicValue(() => new DecryptPackage(get(TOKENS.PackageOpener), get(TOKENS.FileWriter), get(TOKENS.KeyWrappings), get(TOKENS.ContentCipher)));
  container.bind(DiffPackages).toDynamicValue(() => new DiffPackages(get(TOKENS.PackageOpener), get(TOKENS.Hasher), { schemas: get(TOKENS.SchemaValidator), sqlite: get(TOKENS.SqliteReader) }));
  container
    .bind(InitPackage)
    .toDynamicValue(
      () =>
        new InitPackage(new FsPackageTemplates(templatesDirectory()), get(TOKENS.DirectoryWriter), get(TOKENS.FileWriter), get(PackPackage), randomUUID, () =>
          join(tmpdir(), `pkg-init-${randomUUID()}`),
        ),
    );
  container.bind(IndexRegistry).toDynamicValue(() => new IndexRegistry(get(TOKENS.StoreDirectories), get(TOKENS.PackageOpener), get(TOKENS.Hasher), get(TOKENS.RegistryClients), get(TOKENS.FileWriter), get(TOKENS.LocalFiles)));
  container.bind(SearchRegistry).toDynamicValue(() => new SearchRegistry(get(TOKENS.RegistryClients)));
  container.bind(UninstallPackage).toDynamicValue(() => new UninstallPackage(get(StoreCatalog), get(TOKENS.FileWriter)));
  container.bind(InspectPackage).toDynamicValue(() => new InspectPackage(get(TOKENS.PackageOpener), get(SignatureCheck), get(DependencyLoader)));
  container
    .bind(TestPackage)
    .toDynamicValue(() => new TestPackage(get(TOKENS.PackageOpener), get<ReactorHost>(TOKENS.ReactorHost), get(TOKENS.HttpProbe), get(TOKENS.SchemaValidator)));
  return container;
}
