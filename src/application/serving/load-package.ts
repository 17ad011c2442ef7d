import { SignatureMismatchError, UsageError } from '../../domain/errors.js';
import { isEncryptedPackage } from '../../domain/integrity/envelope.js';
import type { ContentCipher } from '../ports/envelope-crypto.js';
import type { FileWriter } from '../ports/file-writer.js';
import { OwnedSource } from '../package/owned-source.js';
import { ShownAsSource } from '../package/shown-as-source.js';
import { decryptEnvelope } from '../signing/envelope-opener.js';
import type { DecryptionKeys } from '../ports/envelope-crypto.js';
import type { SignatureCheck } from '../signing/signature-check.js';
import type { TrustedKeys } from '../signing/trusted-keys.js';
import type { KeyWrappings } from '../signing/signature-schemes.js';
import { assertIntact } from '../integrity/digest-entries.js';
import { readOptional, readPackage } from '../package/package-reader.js';
import { VerifyOnReadSource } from '../integrity/verify-on-read-source.js';
import { digestLookup, listingIntegrity, normalizeSecurity } from '../../domain/integrity/security.js';
import { CONFIGURATION_FILES, SECURITY_FILE } from '../../domain/package/package-paths.js';
import { PrefetchedSource } from '../package/prefetched-source.js';
import type { VerifyMode } from '../../domain/serving/verify-mode.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageOpener, PackageSource } from '../ports/package-source.js';
import type { PackageVerifier } from '../ports/package-verifier.js';
import { assertVerified } from '../signing/verified-package.js';
import type { OverlayMount, OverlayStore } from '../ports/overlay-store.js';
import { emptyLayer } from '../../domain/serving/layer-stack.js';
import type { ByteBudget } from './byte-budget.js';
import type { CompressedCopies } from './compressed-copies.js';
import { NO_DEPENDENCIES, ServedPackage, type ServeOptions } from './served-package.js';
import { readPackageLayers, readTombstones } from '../package/package-layer-stack.js';
import type { DependencyContext, DependencyLoader, DependencyTree } from '../package/dependency-loader.js';
import type { InstallPackage } from '../use-cases/install-package.js';
import { checkDependencyRoutes, dependencyLayers } from './dependency-layers.js';
import type { PackageModel } from '../package/package-reader.js';
import { isPackageUrl, packageUrlGuids } from '../../domain/dependencies/package-url.js';
import { PackageNotFoundError } from '../../domain/errors.js';

export interface LoadOptions extends ServeOptions {
  /** The reactor's workdir: a writable package's overlay lives there, and decrypted packages. Without one, nothing is writable. */
  workdir?: string;
  /** Keys for encrypted packages. */
  keys?: DecryptionKeys;
  /** Store and registry for dependencies and `pkg://` sources. */
  packages?: DependencyContext;
  /** Semver range a `pkg://<guid>` source is installed by; `*` when absent. */
  constraint?: string;
  /** When given, the package and each of its dependencies must be signed by one of these keys. */
  trusted?: TrustedKeys;
  /** Where writable packages keep their overlays; without one (or a workdir), nothing is writable. */
  overlays?: OverlayStore;
  /** The mount path the package will have, by its name: its overlay belongs to that mount. `/` when absent. */
  mountPath?: (packageName: string) => string;
  /** `lazy`: files are checked on first read and the whole package in the background (see VerifyOnReadSource); `eager` when absent. */
  verify?: VerifyMode;
  /** The package came encrypted: what clients write to it is kept from other users, as its plaintext is. */
  privateOverlay?: boolean;
}

/** What loading needs for dependencies and `pkg://` sources. */
export interface LoadDependencies {
  loader: DependencyLoader;
  installer: InstallPackage;
}

/** What loading needs to open encrypted packages and check signed ones. */
export interface LoadSecurity {
  signatures: SignatureCheck;
  wrappings: KeyWrappings;
  cipher: ContentCipher;
  files: FileWriter;
}

/**
 * Loads a package for serving: reads its configuration, verifies it against
 * security.json before anything is served (IntegrityError naming the files), and
 * builds its layers. Once verified, the checksums are the files' ETags. With `verify:
 * 'lazy'` only what the file list shows is checked here; each file's bytes are checked
 * as it is first read, and the reactor checks the whole package in the background.
 */
export class LoadPackage {
  constructor(
    private readonly opener: PackageOpener,
    private readonly hasher: Hasher,
    private readonly verifier: PackageVerifier,
    private readonly budget: ByteBudget,
    private readonly copies: CompressedCopies,
    private readonly security: LoadSecurity,
    private readonly dependencies?: LoadDependencies,
  ) {}

  async execute(location: string, options: LoadOptions): Promise<ServedPackage> {
    if (isPackageUrl(location)) location = await this.install(location, options);
    let source = await this.opener.open(location);
    let encrypted = false;
    try {
      if (isEncryptedPackage((path) => source.has(path))) {
        source = await this.decrypted(source, options);
        encrypted = true;
      }
      const pkg = await this.load(source, encrypted ? { ...options, privateOverlay: true } : options);
      pkg.encrypted = encrypted;
      return pkg;
    } catch (error) {
      // An envelope that failed to open was closed already.
      await source.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * The plaintext `.cap` of an encrypted package, written into the workdir with mode 0600
   * (and nowhere else), opened only once GCM has authenticated all of it, and removed
   * when the package is closed.
   */
  private async decrypted(envelope: PackageSource, options: LoadOptions): Promise<PackageSource> {
    const { files, wrappings, cipher } = this.security;
    try {
      const plaintext = await decryptEnvelope(envelope, options.keys ?? {}, wrappings, cipher);
      if (options.workdir === undefined) throw new UsageError(`${envelope.location} is encrypted and this reactor has no workdir to decrypt it into`);
      const path = `${plaintextDirectory(options.workdir)}/${hex(cipher.randomBytes(8))}.cap`;
      await files.write(path, plaintext, { overwrite: false, mode: 0o600 });
      try {
        return new ShownAsSource(new OwnedSource(await this.opener.open(path), () => files.remove(path)), envelope.location);
      } catch (error) {
        await files.remove(path);
        throw error;
      }
    } finally {
      await envelope.close();
    }
  }

  async load(source: PackageSource, options: LoadOptions): Promise<ServedPackage> {
    // An archive's documents are read together: a 10,000-file package's are megabytes.
    if (source.kind === 'archive') source = new PrefetchedSource(source, CONFIGURATION_FILES);
    const lazy = options.verify === 'lazy' ? await this.verifiedOnRead(source, options.trusted) : undefined;
    if (lazy) source = lazy;
    // security.json read once: a large package's is large.
    const model = await readPackage(source, { generate: 'serving', security: !lazy });
    if (lazy) model.security = lazy.security;
    else await this.verify(source, model, options.trusted);
    // Checked whole just now, but a directory's files may be edited while served: each is held to security.json again on its first read of every new version.
    const rechecked = !lazy && model.security && source.current ? new VerifyOnReadSource(source, model.security, this.hasher, { checkedWhole: true }) : undefined;
    if (rechecked) source = rechecked;
    const tree = await this.resolveDependencies(source, model, options);
    try {
      const fromDependencies = tree ? await dependencyLayers(tree, readTombstones) : NO_DEPENDENCIES;
      const digests = digestLookup(model.security?.checksums ?? {});
      const overlay = options.workdir !== undefined && options.overlays && model.metadata.readOnly !== true ? await this.overlayOf(options.overlays, options.workdir, { path: options.mountPath?.(model.metadata.name) ?? '/', packageName: model.metadata.name, ...(options.privateOverlay ? { ownerOnly: true } : {}) }) : undefined;
      // Closing the package closes its dependencies too.
      const served = tree ? new OwnedSource(source, () => tree.close()) : source;
      const pkg = new ServedPackage(served, model, this.hasher, this.budget, options, await readPackageLayers(source, model), digests, overlay, fromDependencies, this.copies);
      if (tree) checkDependencyRoutes(pkg.routes, fromDependencies, tree);
      pkg.verification = lazy ?? rechecked;
      void pkg.compressInBackground();
      return pkg;
    } catch (error) {
      await tree?.close();
      throw error;
    }
  }

  /** Checksums and signature, before anything of the package is served. */
  private verify(source: PackageSource, model: PackageModel, trusted: TrustedKeys | undefined): Promise<void> {
    return assertVerified(source, model.security, { signatures: this.security.signatures, verifier: this.verifier }, trusted);
  }

  /**
   * `--verify lazy`: the package with each file checked on its first read. What needs no
   * hashing is checked now, as eager verification would: a file security.json lists and
   * the package lacks, a file it does not cover, and an unsigned package where trusted
   * signers are required all stop the load. Without security.json there is nothing to check.
   */
  private async verifiedOnRead(source: PackageSource, trusted: TrustedKeys | undefined): Promise<VerifyOnReadSource | undefined> {
    const security = await readOptional(source, SECURITY_FILE, normalizeSecurity);
    if (trusted && !security?.digitalSignatures) {
      const verdict = await this.security.signatures.check(source, security, { trusted });
      throw new SignatureMismatchError(`${source.location}: ${verdict.reason}`);
    }
    if (!security) return undefined;
    assertIntact(source.location, listingIntegrity(security.checksums, source.entries().map((entry) => entry.path)));
    return new VerifyOnReadSource(source, security, this.hasher);
  }

  /** Resolved, opened and verified like the package itself; undefined when it declares none. */
  private async resolveDependencies(source: PackageSource, model: PackageModel, options: LoadOptions): Promise<DependencyTree | undefined> {
    if (Object.keys(model.metadata.dependencies ?? {}).length === 0) return undefined;
    if (!this.dependencies) throw new UsageError(`${source.location} declares dependencies, and this reactor was built without a way to resolve them`);
    // A bundle's packages are as private as the package holding them, which may have been decrypted.
    const copiesInto = options.workdir !== undefined ? { copiesInto: plaintextDirectory(options.workdir) } : {};
    const tree = await this.dependencies.loader.resolve(source, model.metadata, { ...options.packages, ...copiesInto });
    try {
      for (const dependency of tree.bottomUp()) await this.verify(dependency.pkg, dependency.model, options.trusted);
    } catch (error) {
      await tree.close();
      throw error;
    }
    return tree;
  }

  /**
   * `pkg://<guid>`: the newest version the registry has within the constraint, installed
   * into the store; without a registry, the newest the store holds (`pkg install` put it there).
   */
  private async install(location: string, options: LoadOptions): Promise<string> {
    if (!this.dependencies) throw new UsageError(`${location}: this reactor was built without a registry client`);
    const { registry, store } = options.packages ?? {};
    const constraint = options.constraint ? { constraint: options.constraint } : {};
    let missing: unknown;
    for (const guid of packageUrlGuids(location)) {
      if (!registry) {
        const held = await this.dependencies.installer.installed({ guid, store, ...constraint });
        if (held) return held;
      }
      try {
        return (await this.dependencies.installer.execute({ guid, registry, store, ...constraint })).path;
      } catch (error) {
        if (!(error instanceof PackageNotFoundError)) throw error;
        missing ??= error;
      }
    }
    throw missing;
  }

  /** A writable package's overlay: the files and tombstones earlier runs wrote into this workdir. */
  private async overlayOf(overlays: OverlayStore, workdir: string, mount: OverlayMount): Promise<ServedPackage['overlay']> {
    const files = await overlays.open(workdir, mount);
    const layer = emptyLayer('overlay', { writable: true, exported: true });
    const [written, tombstones] = await Promise.all([files.contentFiles(), files.tombstones()]);
    for (const file of written) layer.files.set(file.path, { ...file, key: file.path });
    for (const path of tombstones) layer.tombstones.add(path);
    return { layer, files };
  }
}

/** Where the reactor keeps plaintext copies: its workdir's `decrypted/`, private to it and emptied whenever a reactor claims or releases the workdir. */
function plaintextDirectory(workdir: string): string {
  return `${workdir}/decrypted`;
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
