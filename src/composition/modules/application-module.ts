import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerModule, type ResolutionContext, type ServiceIdentifier } from 'inversify';
import { EntryDigester } from '../../application/integrity/entry-digester.js';
import { DependencyLoader } from '../../application/package/dependency-loader.js';
import { PackPipeline } from '../../application/package/pack-pipeline.js';
import { StoreCatalog } from '../../application/package/store-catalog.js';
import { ByteBudget } from '../../application/serving/byte-budget.js';
import { CompressedCopies } from '../../application/serving/compressed-copies.js';
import { LoadPackage } from '../../application/serving/load-package.js';
import type { ReactorDependencies } from '../../application/serving/reactor.js';
import type { DatasetReaders } from '../../application/data/package-datasets.js';
import { SignatureCheck } from '../../application/signing/signature-check.js';
import { DecryptPackage } from '../../application/use-cases/decrypt-package.js';
import { DiffPackages } from '../../application/use-cases/diff-packages.js';
import { EncryptPackage } from '../../application/use-cases/encrypt-package.js';
import { IndexRegistry } from '../../application/use-cases/index-registry.js';
import { InitPackage } from '../../application/use-cases/init-package.js';
import { InspectPackage } from '../../application/use-cases/inspect-package.js';
import { InstallPackage } from '../../application/use-cases/install-package.js';
import { PackPackage } from '../../application/use-cases/pack-package.js';
import { PushPackage } from '../../application/use-cases/push-package.js';
import { CopyOverlays } from '../../application/use-cases/copy-overlays.js';
import { SavePackage } from '../../application/use-cases/save-package.js';
import { SearchRegistry } from '../../application/use-cases/search-registry.js';
import { SignPackage } from '../../application/use-cases/sign-package.js';
import { TestPackage } from '../../application/use-cases/test-package.js';
import { UninstallPackage } from '../../application/use-cases/uninstall-package.js';
import { UnpackPackage } from '../../application/use-cases/unpack-package.js';
import { ValidatePackage } from '../../application/use-cases/validate-package.js';
import { VerifySignature } from '../../application/use-cases/verify-signature.js';
import { PORT, SERVICE, USE_CASE } from '../service-ids.js';

/** Bytes of file bodies the reactor keeps in memory across all its packages. */
export const DEFAULT_MEMORY_BUDGET = 32 * 1024 * 1024;

/** What reads a package's datasets: the reactor's, and diff's. */
function datasetReaders(context: ResolutionContext): DatasetReaders {
  return { schemas: context.get(PORT.SchemaValidator), sqlite: context.get(PORT.SqliteReader), clock: context.get(PORT.Clock) };
}

/** What a reactor is made of: its loader, verifier, readers, saver and authentication. */
function reactorDependencies(context: ResolutionContext): ReactorDependencies {
  return {
    loader: context.get(SERVICE.LoadPackage),
    verifier: context.get(PORT.PackageVerifier),
    hasher: context.get(PORT.Hasher),
    clock: context.get(PORT.Clock),
    readers: datasetReaders(context),
    saver: context.get(USE_CASE.SavePackage),
    signatures: context.get(SERVICE.SignatureCheck),
    watcher: context.get(PORT.SourceWatcher),
    auth: {
      files: context.get(PORT.LocalFiles),
      writer: context.get(PORT.FileWriter),
      crypto: context.get(PORT.AuthCrypto),
      passwords: context.get(PORT.PasswordHashes),
      provider: context.get(PORT.OAuth2Provider),
    },
    stores: context.get(PORT.OverlayBackends),
  };
}

/**
 * The application's services and use cases, built from the ports. Use cases are plain
 * classes (no decorators): each is built by a factory, the first time it is resolved.
 */
export const applicationModule = new ContainerModule(({ bind }) => {
  /** Each service is built by its factory the first time it is resolved, then shared. */
  const single = <T>(id: ServiceIdentifier<T>, make: (context: ResolutionContext) => T) => void bind(id).toDynamicValue(make).inSingletonScope();
  // Memory for file bodies across every mounted package.
  single(SERVICE.ByteBudget, () => new ByteBudget(DEFAULT_MEMORY_BUDGET));
  // Compressed copies count in the same budget as the bodies they were made of.
  single(SERVICE.CompressedCopies, (c) => new CompressedCopies(c.get(PORT.Compressor), c.get(SERVICE.ByteBudget)));
  single(SERVICE.SignatureCheck, (c) => new SignatureCheck(c.get(PORT.SignatureSchemes), c.get(PORT.Hasher)));
  single(SERVICE.PackPipeline, (c) => new PackPipeline(c.get(PORT.ArchiveWriter), c.get(PORT.Hasher)));
  single(SERVICE.EntryDigester, (c) => new EntryDigester(c.get(PORT.Hasher), c.get(PORT.ContentReferenceScanner)));
  single(SERVICE.StoreCatalog, (c) => new StoreCatalog(c.get(PORT.StoreDirectories), c.get(PORT.PackageOpener), c.get(PORT.Warnings)));
  single(SERVICE.DependencyLoader, (c) =>
    new DependencyLoader(
      c.get(PORT.PackageOpener),
      c.get(PORT.Hasher),
      c.get(PORT.FileWriter),
      c.get(SERVICE.StoreCatalog),
      c.get(PORT.RegistryClients),
      c.get(USE_CASE.InstallPackage),
      (directory) => join(directory ?? tmpdir(), `pkg-dependency-${randomUUID()}.cap`),
    ),
  );
  single(SERVICE.LoadPackage, (c) =>
    new LoadPackage(
      c.get(PORT.PackageOpener),
      c.get(PORT.Hasher),
      c.get(PORT.PackageVerifier),
      c.get(SERVICE.ByteBudget),
      c.get(SERVICE.CompressedCopies),
      { signatures: c.get(SERVICE.SignatureCheck), wrappings: c.get(PORT.KeyWrappings), cipher: c.get(PORT.ContentCipher), files: c.get(PORT.FileWriter) },
      { loader: c.get(SERVICE.DependencyLoader), installer: c.get(USE_CASE.InstallPackage) },
    ),
  );
  single(SERVICE.ReactorDependencies, reactorDependencies);

  single(USE_CASE.PackPackage, (c) =>
    new PackPackage(c.get(PORT.PackageOpener), c.get(SERVICE.PackPipeline), {
      dependencies: c.get(SERVICE.DependencyLoader),
      hasher: c.get(PORT.Hasher),
      checks: { signatures: c.get(SERVICE.SignatureCheck), verifier: c.get(PORT.PackageVerifier) },
    }),
  );
  single(USE_CASE.UnpackPackage, (c) => new UnpackPackage(c.get(PORT.PackageOpener), c.get(PORT.DirectoryWriter), c.get(PORT.Hasher)));
  single(USE_CASE.ValidatePackage, (c) =>
    new ValidatePackage(c.get(PORT.PackageOpener), c.get(SERVICE.EntryDigester), c.get(PORT.SchemaValidator), c.get(SERVICE.SignatureCheck), { loader: c.get(SERVICE.DependencyLoader), verifier: c.get(PORT.PackageVerifier) }, c.get(PORT.SqliteReader)));
  single(USE_CASE.InspectPackage, (c) => new InspectPackage(c.get(PORT.PackageOpener), c.get(SERVICE.SignatureCheck), c.get(SERVICE.DependencyLoader)));
  single(USE_CASE.TestPackage, (c) => new TestPackage(c.get(PORT.PackageOpener), c.get(PORT.ReactorHost), c.get(PORT.HttpProbe), c.get(PORT.SchemaValidator)));
  single(USE_CASE.SavePackage, (c) => new SavePackage(c.get(USE_CASE.PackPackage)));
  single(USE_CASE.CopyOverlays, (c) => new CopyOverlays(c.get(PORT.OverlayBackends), c.get(PORT.Workdirs)));
  single(USE_CASE.SignPackage, (c) => new SignPackage(c.get(PORT.PackageOpener), c.get(PORT.SignatureSchemes), c.get(SERVICE.PackPipeline), c.get(PORT.FileWriter), c.get(PORT.Hasher)));
  single(USE_CASE.VerifySignature, (c) => new VerifySignature(c.get(PORT.PackageOpener), c.get(SERVICE.SignatureCheck)));
  single(USE_CASE.EncryptPackage, (c) =>
    new EncryptPackage(
      c.get(PORT.PackageOpener),
      c.get(USE_CASE.PackPackage),
      c.get(PORT.ArchiveWriter),
      c.get(PORT.FileWriter),
      c.get(PORT.KeyWrappings),
      c.get(PORT.ContentCipher),
      { signatures: c.get(SERVICE.SignatureCheck), verifier: c.get(PORT.PackageVerifier) },
    ),
  );
  single(USE_CASE.DecryptPackage, (c) => new DecryptPackage(c.get(PORT.PackageOpener), c.get(PORT.FileWriter), c.get(PORT.KeyWrappings), c.get(PORT.ContentCipher)));
  single(USE_CASE.InstallPackage, (c) => new InstallPackage(c.get(PORT.RegistryClients), c.get(SERVICE.StoreCatalog), c.get(PORT.PackageOpener), c.get(PORT.Hasher)));
  single(USE_CASE.PushPackage, (c) => new PushPackage(c.get(PORT.PackageOpener), c.get(USE_CASE.ValidatePackage), c.get(PORT.RegistryClients), c.get(PORT.Hasher)));
  single(USE_CASE.DiffPackages, (c) => new DiffPackages(c.get(PORT.PackageOpener), c.get(PORT.Hasher), datasetReaders(c)));
  single(USE_CASE.InitPackage, (c) =>
    new InitPackage(c.get(PORT.PackageTemplates), c.get(PORT.DirectoryWriter), c.get(PORT.FileWriter), c.get(USE_CASE.PackPackage), randomUUID, () =>
      join(tmpdir(), `pkg-init-${randomUUID()}`),
    ),
  );
  single(USE_CASE.IndexRegistry, (c) =>
    new IndexRegistry(
      c.get(PORT.StoreDirectories),
      c.get(PORT.PackageOpener),
      c.get(PORT.Hasher),
      c.get(PORT.RegistryClients),
      c.get(PORT.FileWriter),
      c.get(PORT.LocalFiles),
    ),
  );
  single(USE_CASE.SearchRegistry, (c) => new SearchRegistry(c.get(PORT.RegistryClients)));
  single(USE_CASE.UninstallPackage, (c) => new UninstallPackage(c.get(SERVICE.StoreCatalog), c.get(PORT.FileWriter)));
});
