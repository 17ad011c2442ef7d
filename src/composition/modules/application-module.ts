import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerModule, type ResolutionContext } from 'inversify';
import { EntryDigester } from '../../application/integrity/entry-digester.js';
import { DependencyLoader } from '../../application/package/dependency-loader.js';
import { PackPipeline } from '../../application/package/pack-pipeline.js';
import { StoreCatalog } from '../../application/package/store-catalog.js';
import { ByteBudget } from '../../application/serving/byte-budget.js';
import { LoadPackage } from '../../application/serving/load-package.js';
import type { ReactorDependencies } from '../../application/serving/reactor.js';
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

/** What a reactor is made of: its loader, verifier, readers, saver and authentication. */
function reactorDependencies(context: ResolutionContext): ReactorDependencies {
  return {
    loader: context.get(SERVICE.LoadPackage),
    verifier: context.get(PORT.PackageVerifier),
    hasher: context.get(PORT.Hasher),
    clock: context.get(PORT.Clock),
    readers: { schemas: context.get(PORT.SchemaValidator), sqlite: context.get(PORT.SqliteReader), clock: context.get(PORT.Clock) },
    saver: context.get(USE_CASE.SavePackage),
    signatures: context.get(SERVICE.SignatureCheck),
    watcher: context.get(PORT.SourceWatcher),
    auth: {
      files: context.get(PORT.LocalFiles),
      writer: context.get(PORT.FileWriter),
      crypto: context.get(PORT.AuthCrypto),
      passwords: context.get(PORT.PasswordHashes),
      provider: context.get(PORT.OAuth2Provider),
      revocations: context.get(PORT.SessionRevocationStore),
    },
  };
}

/**
 * The application's services and use cases, built from the ports. Use cases are plain
 * classes (no decorators): each is built by a factory, the first time it is resolved.
 */
export const applicationModule = new ContainerModule(({ bind }) => {
  // Memory for file bodies across every mounted package.
  bind(SERVICE.ByteBudget).toDynamicValue(() => new ByteBudget(DEFAULT_MEMORY_BUDGET)).inSingletonScope();
  bind(SERVICE.SignatureCheck)
    .toDynamicValue((c) => new SignatureCheck(c.get(PORT.SignatureSchemes), c.get(PORT.Hasher)))
    .inSingletonScope();
  bind(SERVICE.PackPipeline)
    .toDynamicValue((c) => new PackPipeline(c.get(PORT.ArchiveWriter), c.get(PORT.Hasher)))
    .inSingletonScope();
  bind(SERVICE.EntryDigester)
    .toDynamicValue((c) => new EntryDigester(c.get(PORT.Hasher), c.get(PORT.ContentReferenceScanner)))
    .inSingletonScope();
  bind(SERVICE.StoreCatalog)
    .toDynamicValue((c) => new StoreCatalog(c.get(PORT.StoreDirectories), c.get(PORT.PackageOpener), c.get(PORT.Warnings)))
    .inSingletonScope();
  bind(SERVICE.DependencyLoader)
    .toDynamicValue(
      (c) =>
        new DependencyLoader(
          c.get(PORT.PackageOpener),
          c.get(PORT.Hasher),
          c.get(PORT.FileWriter),
          c.get(SERVICE.StoreCatalog),
          c.get(PORT.RegistryClients),
          c.get(USE_CASE.InstallPackage),
          () => join(tmpdir(), `pkg-dependency-${randomUUID()}.cap`),
        ),
    )
    .inSingletonScope();
  bind(SERVICE.LoadPackage)
    .toDynamicValue(
      (c) =>
        new LoadPackage(
          c.get(PORT.PackageOpener),
          c.get(PORT.Hasher),
          c.get(PORT.PackageVerifier),
          c.get(SERVICE.ByteBudget),
          c.get(PORT.OverlayStore),
          { signatures: c.get(SERVICE.SignatureCheck), wrappings: c.get(PORT.KeyWrappings), cipher: c.get(PORT.ContentCipher), files: c.get(PORT.FileWriter) },
          { loader: c.get(SERVICE.DependencyLoader), installer: c.get(USE_CASE.InstallPackage) },
        ),
    )
    .inSingletonScope();
  bind(SERVICE.ReactorDependencies).toDynamicValue(reactorDependencies).inSingletonScope();

  bind(USE_CASE.PackPackage)
    .toDynamicValue(
      (c) => new PackPackage(c.get(PORT.PackageOpener), c.get(SERVICE.PackPipeline), { dependencies: c.get(SERVICE.DependencyLoader), hasher: c.get(PORT.Hasher) }),
    )
    .inSingletonScope();
  bind(USE_CASE.UnpackPackage)
    .toDynamicValue((c) => new UnpackPackage(c.get(PORT.PackageOpener), c.get(PORT.DirectoryWriter), c.get(PORT.Hasher)))
    .inSingletonScope();
  bind(USE_CASE.ValidatePackage)
    .toDynamicValue(
      (c) =>
        new ValidatePackage(c.get(PORT.PackageOpener), c.get(SERVICE.EntryDigester), c.get(PORT.SchemaValidator), c.get(SERVICE.SignatureCheck), c.get(SERVICE.DependencyLoader)),
    )
    .inSingletonScope();
  bind(USE_CASE.InspectPackage)
    .toDynamicValue((c) => new InspectPackage(c.get(PORT.PackageOpener), c.get(SERVICE.SignatureCheck), c.get(SERVICE.DependencyLoader)))
    .inSingletonScope();
  bind(USE_CASE.TestPackage)
    .toDynamicValue((c) => new TestPackage(c.get(PORT.PackageOpener), c.get(PORT.ReactorHost), c.get(PORT.HttpProbe), c.get(PORT.SchemaValidator)))
    .inSingletonScope();
  bind(USE_CASE.SavePackage)
    .toDynamicValue((c) => new SavePackage(c.get(USE_CASE.PackPackage)))
    .inSingletonScope();
  bind(USE_CASE.SignPackage)
    .toDynamicValue(
      (c) => new SignPackage(c.get(PORT.PackageOpener), c.get(PORT.SignatureSchemes), c.get(SERVICE.PackPipeline), c.get(PORT.FileWriter), c.get(PORT.Hasher)),
    )
    .inSingletonScope();
  bind(USE_CASE.VerifySignature)
    .toDynamicValue((c) => new VerifySignature(c.get(PORT.PackageOpener), c.get(SERVICE.SignatureCheck)))
    .inSingletonScope();
  bind(USE_CASE.EncryptPackage)
    .toDynamicValue(
      (c) =>
        new EncryptPackage(
          c.get(PORT.PackageOpener),
          c.get(USE_CASE.PackPackage),
          c.get(PORT.ArchiveWriter),
          c.get(PORT.FileWriter),
          c.get(PORT.KeyWrappings),
          c.get(PORT.ContentCipher),
        ),
    )
    .inSingletonScope();
  bind(USE_CASE.DecryptPackage)
    .toDynamicValue((c) => new DecryptPackage(c.get(PORT.PackageOpener), c.get(PORT.FileWriter), c.get(PORT.KeyWrappings), c.get(PORT.ContentCipher)))
    .inSingletonScope();
  bind(USE_CASE.InstallPackage)
    .toDynamicValue((c) => new InstallPackage(c.get(PORT.RegistryClients), c.get(SERVICE.StoreCatalog), c.get(PORT.PackageOpener), c.get(PORT.Hasher)))
    .inSingletonScope();
  bind(USE_CASE.PushPackage)
    .toDynamicValue((c) => new PushPackage(c.get(PORT.PackageOpener), c.get(USE_CASE.ValidatePackage), c.get(PORT.RegistryClients), c.get(PORT.Hasher)))
    .inSingletonScope();
  bind(USE_CASE.DiffPackages)
    .toDynamicValue(
      (c) => new DiffPackages(c.get(PORT.PackageOpener), c.get(PORT.Hasher), { schemas: c.get(PORT.SchemaValidator), sqlite: c.get(PORT.SqliteReader), clock: c.get(PORT.Clock) }),
    )
    .inSingletonScope();
  bind(USE_CASE.InitPackage)
    .toDynamicValue(
      (c) =>
        new InitPackage(c.get(PORT.PackageTemplates), c.get(PORT.DirectoryWriter), c.get(PORT.FileWriter), c.get(USE_CASE.PackPackage), randomUUID, () =>
          join(tmpdir(), `pkg-init-${randomUUID()}`),
        ),
    )
    .inSingletonScope();
  bind(USE_CASE.IndexRegistry)
    .toDynamicValue(
      (c) =>
        new IndexRegistry(
          c.get(PORT.StoreDirectories),
          c.get(PORT.PackageOpener),
          c.get(PORT.Hasher),
          c.get(PORT.RegistryClients),
          c.get(PORT.FileWriter),
          c.get(PORT.LocalFiles),
        ),
    )
    .inSingletonScope();
  bind(USE_CASE.SearchRegistry)
    .toDynamicValue((c) => new SearchRegistry(c.get(PORT.RegistryClients)))
    .inSingletonScope();
  bind(USE_CASE.UninstallPackage)
    .toDynamicValue((c) => new UninstallPackage(c.get(SERVICE.StoreCatalog), c.get(PORT.FileWriter)))
    .inSingletonScope();
});
