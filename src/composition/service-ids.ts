import type { ServiceIdentifier } from 'inversify';
import type { ArchiveWriter } from '../application/ports/archive-writer.js';
import type { AuthCrypto } from '../application/ports/auth-crypto.js';
import type { Clock } from '../application/ports/clock.js';
import type { Compressor } from '../application/ports/compressor.js';
import type { ContentReferenceScanner } from '../application/ports/content-references.js';
import type { DirectoryWriter } from '../application/ports/directory-writer.js';
import type { ContentCipher } from '../application/ports/envelope-crypto.js';
import type { FileWriter } from '../application/ports/file-writer.js';
import type { Hasher } from '../application/ports/hasher.js';
import type { HttpProbe } from '../application/ports/http-probe.js';
import type { LocalFiles } from '../application/ports/local-files.js';
import type { OAuth2Provider } from '../application/ports/oauth2-provider.js';
import type { OverlayBackends, OverlayStore } from '../application/ports/overlay-store.js';
import type { PackageOpener } from '../application/ports/package-source.js';
import type { StoreDirectories } from '../application/ports/package-store.js';
import type { PackageTemplates } from '../application/ports/package-templates.js';
import type { PackageVerifier } from '../application/ports/package-verifier.js';
import type { PasswordHashes } from '../application/ports/password-hashes.js';
import type { ReactorHost } from '../application/ports/reactor-host.js';
import type { RegistryClients } from '../application/ports/registry-client.js';
import type { SchemaValidator } from '../application/ports/schema-validator.js';
import type { SessionRevocationStore } from '../application/ports/session-revocations.js';
import type { SourceWatcher } from '../application/ports/source-watcher.js';
import type { SqliteReader } from '../application/ports/sqlite-reader.js';
import type { Warnings } from '../application/ports/warnings.js';
import type { Workdirs } from '../application/ports/workdirs.js';
import type { KeyWrappings, SignatureSchemes } from '../application/signing/signature-schemes.js';
import type { SignatureCheck } from '../application/signing/signature-check.js';
import type { EntryDigester } from '../application/integrity/entry-digester.js';
import type { PackPipeline } from '../application/package/pack-pipeline.js';
import type { StoreCatalog } from '../application/package/store-catalog.js';
import type { DependencyLoader } from '../application/package/dependency-loader.js';
import type { ByteBudget } from '../application/serving/byte-budget.js';
import type { CompressedCopies } from '../application/serving/compressed-copies.js';
import type { LoadPackage } from '../application/serving/load-package.js';
import type { ReactorDependencies } from '../application/serving/reactor.js';
import type { PackPackage } from '../application/use-cases/pack-package.js';
import type { UnpackPackage } from '../application/use-cases/unpack-package.js';
import type { ValidatePackage } from '../application/use-cases/validate-package.js';
import type { InspectPackage } from '../application/use-cases/inspect-package.js';
import type { TestPackage } from '../application/use-cases/test-package.js';
import type { SavePackage } from '../application/use-cases/save-package.js';
import type { CopyOverlays } from '../application/use-cases/copy-overlays.js';
import type { SignPackage } from '../application/use-cases/sign-package.js';
import type { VerifySignature } from '../application/use-cases/verify-signature.js';
import type { EncryptPackage } from '../application/use-cases/encrypt-package.js';
import type { DecryptPackage } from '../application/use-cases/decrypt-package.js';
import type { InstallPackage } from '../application/use-cases/install-package.js';
import type { PushPackage } from '../application/use-cases/push-package.js';
import type { DiffPackages } from '../application/use-cases/diff-packages.js';
import type { InitPackage } from '../application/use-cases/init-package.js';
import type { IndexRegistry } from '../application/use-cases/index-registry.js';
import type { SearchRegistry } from '../application/use-cases/search-registry.js';
import type { UninstallPackage } from '../application/use-cases/uninstall-package.js';

/**
 * A service identifier that carries the type of what it names. inversify infers `T` from
 * it (`ServiceIdentifier<T>` includes `Newable<T>`), so `bind(id).toConstantValue(x)`,
 * `rebind`, `get` and the tests' swaps refuse a value of another type at compile time
 * (test/unit/composition/service-ids.test.ts holds the proof).
 */
function id<T>(name: string): ServiceIdentifier<T> {
  return Symbol(name);
}

/** One identifier per application port: interfaces do not exist at run time. */
export const PORT = {
  /** Opens a package wherever it is: a directory, or a file through the archive opener. */
  PackageOpener: id<PackageOpener>('PackageOpener'),
  /** Opens a `.cap` in place. */
  ArchiveOpener: id<PackageOpener>('ArchiveOpener'),
  ArchiveWriter: id<ArchiveWriter>('ArchiveWriter'),
  Hasher: id<Hasher>('Hasher'),
  SignatureSchemes: id<SignatureSchemes>('SignatureSchemes'),
  KeyWrappings: id<KeyWrappings>('KeyWrappings'),
  ContentCipher: id<ContentCipher>('ContentCipher'),
  DirectoryWriter: id<DirectoryWriter>('DirectoryWriter'),
  FileWriter: id<FileWriter>('FileWriter'),
  OverlayStore: id<OverlayStore>('OverlayStore'),
  OverlayBackends: id<OverlayBackends>('OverlayBackends'),
  StoreDirectories: id<StoreDirectories>('StoreDirectories'),
  PackageTemplates: id<PackageTemplates>('PackageTemplates'),
  Workdirs: id<Workdirs>('Workdirs'),
  SourceWatcher: id<SourceWatcher>('SourceWatcher'),
  RegistryClients: id<RegistryClients>('RegistryClients'),
  ReactorHost: id<ReactorHost>('ReactorHost'),
  HttpProbe: id<HttpProbe>('HttpProbe'),
  LocalFiles: id<LocalFiles>('LocalFiles'),
  AuthCrypto: id<AuthCrypto>('AuthCrypto'),
  PasswordHashes: id<PasswordHashes>('PasswordHashes'),
  OAuth2Provider: id<OAuth2Provider>('OAuth2Provider'),
  SessionRevocationStore: id<SessionRevocationStore>('SessionRevocationStore'),
  SchemaValidator: id<SchemaValidator>('SchemaValidator'),
  SqliteReader: id<SqliteReader>('SqliteReader'),
  ContentReferenceScanner: id<ContentReferenceScanner>('ContentReferenceScanner'),
  PackageVerifier: id<PackageVerifier>('PackageVerifier'),
  Clock: id<Clock>('Clock'),
  Compressor: id<Compressor>('Compressor'),
  Warnings: id<Warnings>('Warnings'),
} as const;

/** The application's services that use cases share. */
export const SERVICE = {
  ByteBudget: id<ByteBudget>('ByteBudget'),
  CompressedCopies: id<CompressedCopies>('CompressedCopies'),
  SignatureCheck: id<SignatureCheck>('SignatureCheck'),
  PackPipeline: id<PackPipeline>('PackPipeline'),
  EntryDigester: id<EntryDigester>('EntryDigester'),
  StoreCatalog: id<StoreCatalog>('StoreCatalog'),
  DependencyLoader: id<DependencyLoader>('DependencyLoader'),
  LoadPackage: id<LoadPackage>('LoadPackage'),
  /** What a reactor is made of: the host starts reactors with it, and so do the reactor tests. */
  ReactorDependencies: id<ReactorDependencies>('ReactorDependencies'),
} as const;

/** The use cases, each resolved by the CLI command that runs it. */
export const USE_CASE = {
  PackPackage: id<PackPackage>('PackPackage'),
  UnpackPackage: id<UnpackPackage>('UnpackPackage'),
  ValidatePackage: id<ValidatePackage>('ValidatePackage'),
  InspectPackage: id<InspectPackage>('InspectPackage'),
  TestPackage: id<TestPackage>('TestPackage'),
  SavePackage: id<SavePackage>('SavePackage'),
  CopyOverlays: id<CopyOverlays>('CopyOverlays'),
  SignPackage: id<SignPackage>('SignPackage'),
  VerifySignature: id<VerifySignature>('VerifySignature'),
  EncryptPackage: id<EncryptPackage>('EncryptPackage'),
  DecryptPackage: id<DecryptPackage>('DecryptPackage'),
  InstallPackage: id<InstallPackage>('InstallPackage'),
  PushPackage: id<PushPackage>('PushPackage'),
  DiffPackages: id<DiffPackages>('DiffPackages'),
  InitPackage: id<InitPackage>('InitPackage'),
  IndexRegistry: id<IndexRegistry>('IndexRegistry'),
  SearchRegistry: id<SearchRegistry>('SearchRegistry'),
  UninstallPackage: id<UninstallPackage>('UninstallPackage'),
} as const;
