import { datasetViolations } from '../data/dataset-violations.js';
import { PackageNotFoundError, RegistryNotConfiguredError, UnsatisfiableConstraintError } from '../../domain/errors.js';
import { readSqliteRows } from '../data/sqlite-rows.js';
import { metadataGaps } from '../../domain/package/metadata.js';
import { nestedPackageHint } from '../../domain/package/nested-package.js';
import { compareChecksums, describeIntegrity, normalizeSecurity, type Security } from '../../domain/integrity/security.js';
import { checkResult, validationReport, type CheckResult, type ValidationReport } from '../../domain/validation/check-report.js';
import { reactorPathRouteWarnings } from '../../domain/validation/reactor-path-routes.js';
import { lockedRouteWarning } from '../../domain/validation/locked-routes.js';
import { describeRouteHeaderReference, routeHeaderReferences } from '../../domain/validation/route-header-references.js';
import { datasetRouteAttributeWarnings, duplicateRoutePaths, handlerRouteWarnings, manifestErrors, otherSpellingIn, resourceExists, routeErrors, storageFileErrors, unreachableRouteWarnings, type OtherSpelling, type ResourceExists } from '../../domain/validation/package-checks.js';
import { LayerStack, type Layer } from '../../domain/serving/layer-stack.js';
import { readPackageLayers, readTombstones } from '../package/package-layer-stack.js';
import { packageLayers } from '../serving/served-package.js';
import { dependencyLayers, dependencyResourceProblem } from '../serving/dependency-layers.js';
import type { DependencyContext, DependencyLoader, DependencyTree } from '../package/dependency-loader.js';
import { normalizeManifest, type Manifest } from '../../domain/package/manifest.js';
import { FALLBACK_TYPE, isTextType } from '../../domain/package/media-types.js';
import { normalizeMetadata, type Metadata } from '../../domain/package/metadata.js';
import { normalizeAuthentication, type Authentication } from '../../domain/package/authentication.js';
import { AUTHENTICATION_FILE, MANIFEST_FILE, METADATA_FILE, ROUTES_FILE, SECURITY_FILE, STORAGE_FILE, isContentPath, sortByPath } from '../../domain/package/package-paths.js';
import { generateRoutes, normalizeRoutes, type Routes } from '../../domain/package/routes.js';
import { normalizeStorage, type Storage } from '../../domain/package/storage.js';
import { coveredPaths } from '../integrity/digest-entries.js';
import { BUNDLE_INDEX_FILE } from '../../domain/dependencies/bundle-index.js';
import { DatasetIndex, describeShadowed } from '../../domain/data/dataset-index.js';
import type { EntryDigester } from '../integrity/entry-digester.js';
import { MAX_DATA_DOCUMENT_BYTES, MAX_DATA_FILE_DEPTH, generateManifestFor, readDataDocument, readDocument } from '../package/package-reader.js';
import { unstorableJson } from '../../domain/data/json-depth.js';
import { messageOf } from '../shared/error-message.js';
import type { PackageOpener, PackageSource } from '../ports/package-source.js';
import type { SchemaValidator } from '../ports/schema-validator.js';
import type { SqliteReader } from '../ports/sqlite-reader.js';
import { refuseEncrypted } from '../signing/envelope-opener.js';
import type { SignatureCheck } from '../signing/signature-check.js';
import { assertVerified } from '../signing/verified-package.js';
import type { PackageVerifier } from '../ports/package-verifier.js';

type Parsed<T> = { value: T } | { error: string } | { absent: true };

/**
 * The six checks of SPEC.md, each reported on its own: metadata, manifest, routes,
 * storage, security and content. Every file is read once: hashing for the security
 * check and the scan for external references share the same pass.
 */
export class ValidatePackage {
  constructor(
    private readonly opener: PackageOpener,
    private readonly digester: EntryDigester,
    private readonly schemas: SchemaValidator,
    private readonly signatures: SignatureCheck,
    /** Resolves dependencies, and checks each as the reactor does before it stacks its layers. */
    private readonly dependencies?: { loader: DependencyLoader; verifier: PackageVerifier },
    /** Opens SQLite datasets as the reactor does; without it they are checked for presence only. */
    private readonly sqlite?: SqliteReader,
  ) {}

  /** With a store or registry in `context`, a composite package's dependencies are resolved and its resources checked through them. */
  async execute(location: string, context: DependencyContext = {}): Promise<ValidationReport> {
    const source = await this.opener.open(location);
    try {
      refuseEncrypted(source, 'validate');
      return await this.validate(source, context);
    } finally {
      await source.close();
    }
  }

  async validate(source: PackageSource, context: DependencyContext = {}): Promise<ValidationReport> {
    const files = new Set(source.entries().map((entry) => entry.path));
    const parse = async <T>(path: string, normalize: (raw: unknown) => T): Promise<Parsed<T>> => {
      if (!files.has(path)) return { absent: true };
      try {
        return { value: normalize(await readDocument(source, path)) };
      } catch (error) {
        return { error: messageOf(error) };
      }
    };
    const metadata = await parse(METADATA_FILE, normalizeMetadata);
    const manifest = await parse(MANIFEST_FILE, normalizeManifest);
    const routes = await parse(ROUTES_FILE, normalizeRoutes);
    const storage = await parse(STORAGE_FILE, normalizeStorage);
    const security = await parse(SECURITY_FILE, normalizeSecurity);
    const authentication = await parse(AUTHENTICATION_FILE, normalizeAuthentication);
    const storageValue = 'value' in storage ? storage.value : undefined;
    // Each file as the reactor serves it: by its manifest entry, else by extension, else by its first bytes.
    const detected = await generateManifestFor(source);
    const manifestValue = 'value' in manifest ? { ...detected, ...manifest.value } : detected;

    const { digests, references, unscanned } = await this.readEverything(source, manifestValue, 'value' in security);
    const resources = { ...(await this.resources(source, files, storageValue, 'value' in metadata ? metadata.value : undefined, context)), otherSpelling: otherSpellingIn(files) };
    try {
      return validationReport(source.location, [
        this.checkMetadata(metadata, files),
        this.checkManifest(manifest, resources),
        this.checkRoutes(routes, files, storageValue, resources, 'value' in authentication ? authentication.value : undefined),
        await this.checkStorage(source, storage, files, resources.layers),
        this.checkSecurity(security, digests),
        ...('value' in security && security.value.digitalSignatures ? [await this.checkSignature(source, security.value)] : []),
        ...('absent' in authentication ? [] : [this.checkAuthentication(authentication, files)]),
        // What routes.json has the browser load through the headers it sends counts as a page's references do.
        checkResult('content', [...references, ...('value' in routes ? routeHeaderReferences(routes.value).map(describeRouteHeaderReference) : [])], unscanned),
      ]);
    } finally {
      await resources.close();
    }
  }

  /**
   * Resources as the reactor finds them: `content/` paths through the package's layer
   * stack (and its dependencies' exported content, when a store or registry lets them be
   * resolved), `<guid>/content/...` through that dependency.
   */
  private async resources(source: PackageSource, files: ReadonlySet<string>, storage: Storage | undefined, metadata: Metadata | undefined, context: DependencyContext): Promise<{ exists: ResourceExists; problem?: string; refused?: true; layers?: string; close: () => Promise<void> }> {
    let unreadable: string | undefined;
    // A layer's .pkg-tombstones the reactor would refuse: reported (in the storage check), and the layers read without it.
    const own = await readPackageLayers(source, storage ? { storage } : {}).catch((error: unknown) => {
      unreadable = messageOf(error);
      return packageLayers(source, storage ? { storage } : {}, new Map());
    });
    const withLayers = <T extends object>(result: T): T & { layers?: string } => (unreadable === undefined ? result : { ...result, layers: unreadable });
    const declared = metadata?.dependencies ?? {};
    // The package's own bundle is a place to resolve from as the reactor does, store or not.
    const canResolve = this.dependencies !== undefined && (context.store !== undefined || context.registry !== undefined || source.has(BUNDLE_INDEX_FILE));
    if (Object.keys(declared).length === 0 || !canResolve) {
      const stack = new LayerStack(own);
      return withLayers({ exists: resourceExists(files, visibleIn(stack, own), declared, undefined), close: async () => undefined });
    }
    let tree: DependencyTree;
    // A dependency found but refused is no matter of where to look: only one nowhere to be found is (`refused` tells them apart).
    const unusable = (problem: string, refused: boolean) => withLayers({ exists: resourceExists(files, visibleIn(new LayerStack(own), own), declared, undefined), problem, ...(refused ? { refused: true as const } : {}), close: async () => undefined });
    try {
      tree = await this.dependencies!.loader.resolve(source, metadata!, context);
    } catch (error) {
      return unusable(`dependencies could not be resolved: ${messageOf(error)}`, !isUnfound(error));
    }
    try {
      // A dependency failing its own checksums or signature stops the reactor's load: a package valid here must load there.
      for (const dependency of tree.bottomUp()) await assertVerified(dependency.pkg, dependency.model.security, { signatures: this.signatures, verifier: this.dependencies!.verifier });
    } catch (error) {
      await tree.close();
      return unusable(`a dependency would be refused: ${messageOf(error)}`, true);
    }
    const layers = await dependencyLayers(tree, readTombstones);
    const stack = new LayerStack([...layers.layers, ...own]);
    const exists = resourceExists(files, visibleIn(stack, [...layers.layers, ...own]), declared, (guid, path) => {
      const unusable = dependencyResourceProblem(layers, tree, guid, path);
      return unusable === undefined ? true : { unusable };
    });
    return withLayers({ exists, close: () => tree.close() });
  }

  /** Only for a package that declares a signature; an unsigned package is not invalid. */
  private async checkSignature(source: PackageSource, security: Security): Promise<CheckResult> {
    const verdict = await this.signatures.check(source, security);
    return checkResult('signature', verdict.valid ? [] : [verdict.reason!], verdict.valid ? [`${verdict.scheme} signature by ${security.digitalSignatures!.publicKey} matches`] : []);
  }

  /** Only for a package that has authentication.json: the reactor refuses to serve it when this check fails. */
  private checkAuthentication(authentication: Exclude<Parsed<Authentication>, { absent: true }>, files: ReadonlySet<string>): CheckResult {
    if ('error' in authentication) return checkResult('authentication', [authentication.error]);
    const { basicAuth, oauth2 } = authentication.value;
    const passwdFile = basicAuth?.passwdFile;
    const errors = passwdFile === undefined || files.has(passwdFile) ? [] : [`${AUTHENTICATION_FILE}: authentication.basicAuth.passwdFile: ${passwdFile} is not in the package`];
    const enabled = [basicAuth?.enabled ? 'basic auth' : undefined, oauth2?.enabled ? 'OAuth2' : undefined].filter((kind) => kind !== undefined);
    return checkResult('authentication', errors, [enabled.length > 0 ? `${enabled.join(' and ')} enabled` : 'no authentication enabled']);
  }

  private checkMetadata(metadata: Parsed<Metadata>, files: ReadonlySet<string>): CheckResult {
    if ('absent' in metadata) return checkResult('metadata', [`${METADATA_FILE} is missing${nestedPackageHint(files)}`]);
    if ('error' in metadata) return checkResult('metadata', [metadata.error]);
    return checkResult('metadata', metadataGaps(metadata.value), [`${metadata.value.name} ${metadata.value.version}`]);
  }

  private checkManifest(manifest: Parsed<Manifest>, resources: { exists: ResourceExists; refused?: true; otherSpelling: OtherSpelling }): CheckResult {
    if ('absent' in manifest) return checkResult('manifest', [], [`${MANIFEST_FILE} absent: generated from content/ at pack or load time`]);
    if ('error' in manifest) return checkResult('manifest', [manifest.error]);
    const findings = manifestErrors(manifest.value, resources.exists, resources.otherSpelling);
    return checkResult('manifest', findings.errors, [`${Object.keys(manifest.value).length} resources`, ...uncheckedWarning(findings.unchecked, resources.refused), ...deletedWarning(findings.deleted)]);
  }

  private checkRoutes(routes: Parsed<Routes>, files: ReadonlySet<string>, storage: Storage | undefined, resources: { exists: ResourceExists; problem?: string; refused?: true; otherSpelling: OtherSpelling }, authentication: Authentication | undefined): CheckResult {
    if ('error' in routes) return checkResult('routes', [routes.error]);
    // Dependencies the reactor could not resolve refuse the package whether routes.json is written or generated.
    const unresolved = resources.problem ? [resources.problem] : [];
    if ('absent' in routes) {
      const generated = generateRoutes(files, Object.keys(storage?.dataSets ?? {}));
      return checkResult('routes', unresolved, [
        `${ROUTES_FILE} absent: ${generated.routes.routes.length} routes generated at pack or load time`,
        ...generated.collisions.map((path) => `warning: generated route ${path} is claimed by two files; the first wins`),
      ]);
    }
    const duplicates = duplicateRoutePaths(routes.value).map((path) => `warning: route ${path} is declared (or remapped to) more than once; the first wins`);
    const findings = routeErrors(routes.value, resources.exists, storage, resources.otherSpelling);
    return checkResult('routes', [...findings.errors, ...unresolved], [
      `${routes.value.routes.length} routes`,
      ...duplicates,
      ...unreachableRouteWarnings(routes.value),
      ...[...reactorPathRouteWarnings(routes.value, { root: true, datasets: Object.keys(storage?.dataSets ?? {}).length > 0 }), ...lockedRouteWarning(routes.value, authentication)].map((warning) => `warning: ${warning}`),
      ...handlerRouteWarnings(routes.value),
      ...datasetRouteAttributeWarnings(routes.value),
      ...uncheckedWarning(findings.unchecked, resources.refused),
      ...deletedWarning(findings.deleted),
    ]);
  }

  private async checkStorage(source: PackageSource, storage: Parsed<Storage>, files: ReadonlySet<string>, layers: string | undefined): Promise<CheckResult> {
    const unreadableLayers = layers === undefined ? [] : [layers];
    if ('absent' in storage) return checkResult('storage', unreadableLayers, ['no storage.json: no datasets']);
    if ('error' in storage) return checkResult('storage', [storage.error, ...unreadableLayers]);
    const errors = [...storageFileErrors(storage.value, files), ...unreadableLayers];
    const notes: string[] = [];
    for (const [id, dataSet] of Object.entries(storage.value.dataSets)) {
      if (dataSet.kind === 'sqlite') {
        if (this.sqlite && files.has(dataSet.databaseFile)) await this.checkSqlite(source, id, dataSet.databaseFile, dataSet.table, errors, notes);
        continue;
      }
      if (!files.has(dataSet.source)) continue;
      // Read as the reactor reads it, schema or not: what it would refuse or not serve is an error here.
      let data: unknown;
      try {
        data = await readDataDocument(source, dataSet.source);
      } catch (error) {
        errors.push(`dataset ${id}: ${messageOf(error)}`);
        continue;
      }
      if (Array.isArray(data)) errors.push(...shadowedItems(id, dataSet.source, data));
      errors.push(...infiniteNumbers(id, dataSet.source, data));
      if (!dataSet.schemaFile) {
        notes.push(`dataset ${id}: no schema declared`);
        continue;
      }
      if (!files.has(dataSet.schemaFile)) continue;
      try {
        const checked = await datasetViolations(this.schemas, await readDocument(source, dataSet.schemaFile), dataSet.schemaFile, data, dataSet.source);
        errors.push(...checked.violations.map((violation) => `dataset ${id}: ${violation}`));
        notes.push(`dataset ${id}: ${checked.items} ${checked.items === 1 ? 'item' : 'items'} valid against ${dataSet.schemaFile}`);
      } catch (error) {
        errors.push(`dataset ${id}: ${messageOf(error)}`);
      }
    }
    return checkResult('storage', errors, notes.filter(() => errors.length === 0));
  }

  /** A SQLite dataset opened as the reactor opens it: a file that is not a database, or lacks the table, stops the reactor too. */
  private async checkSqlite(source: PackageSource, id: string, file: string, table: string, errors: string[], notes: string[]): Promise<void> {
    try {
      const rows = await readSqliteRows(source, this.sqlite!, file, table);
      errors.push(...shadowedItems(id, file, rows), ...infiniteNumbers(id, file, rows));
      notes.push(`dataset ${id}: ${rows.length} ${rows.length === 1 ? 'row' : 'rows'} in table ${table} of ${file}`);
    } catch (error) {
      errors.push(`dataset ${id}: ${messageOf(error)}`);
    }
  }

  private checkSecurity(security: Parsed<Security>, digests: ReadonlyMap<string, string>): CheckResult {
    if ('absent' in security) return checkResult('security', [], [`no ${SECURITY_FILE}: checksums are written at pack time`]);
    if ('error' in security) return checkResult('security', [security.error]);
    const problems = describeIntegrity(compareChecksums(security.value.checksums, digests));
    return checkResult('security', problems, [`${Object.keys(security.value.checksums).length} checksums match`].filter(() => problems.length === 0));
  }

  /** One pass over the package: hashes every covered file and scans content text for external references. */
  private async readEverything(source: PackageSource, manifest: Manifest, hashing: boolean): Promise<{ digests: Map<string, string>; references: string[]; unscanned: string[] }> {
    const typeOf = (path: string) => manifest[path]?.type ?? FALLBACK_TYPE;
    const text = source.entries().filter(({ path }) => isContentPath(path) && isTextType(typeOf(path)));
    // Scanned as one string: a larger one would not fit in the engine's longest string, or would take gigabytes to parse.
    const scanned = new Map(text.filter(({ size }) => size <= MAX_DATA_DOCUMENT_BYTES).map(({ path }) => [path, typeOf(path)]));
    const unscanned = text.filter(({ path }) => !scanned.has(path)).map(({ path }) => notScanned(path, `larger than ${MAX_DATA_DOCUMENT_BYTES / 1024 / 1024} MiB`));
    const paths = hashing ? coveredPaths(source) : [...scanned.keys()];
    const { digests, references, unscannable } = await this.digester.digest(source, paths, scanned);
    const lines = references.map(({ path, line, url }) => `${path}:${line}: external reference ${url}`);
    for (const { path, reason } of sortByPath(unscannable, (file) => file.path)) unscanned.push(notScanned(path, reason));
    return { digests, references: lines.sort(), unscanned };
  }
}

/** The content check's warning for a text file whose references are not all known. */
function notScanned(path: string, reason: string): string {
  return `warning: ${path} is not scanned for external references: ${reason}`;
}

/** Numbers the reactor serves as null yet filters and sorts as Infinity (1e400 in a JSON file, a REAL of 9e999 in a SQLite table alike). */
function infiniteNumbers(id: string, file: string, data: unknown): string[] {
  return unstorableJson(data, MAX_DATA_FILE_DEPTH) === 'infinite number' ? [`dataset ${id}: ${file} holds a number beyond what JSON numbers carry (like 1e400): it is read as Infinity and served as null`] : [];
}

/** Items the reactor would not serve, their id taken by an earlier one (a JSON list or a SQLite table alike). */
function shadowedItems(id: string, file: string, items: unknown[]): string[] {
  const { shadowed } = new DatasetIndex(items);
  return shadowed.length > 0 ? [`dataset ${id}: ${describeShadowed(file, shadowed)}`] : [];
}

/** Resources that may come from dependencies nobody resolved, or one found and refused: named, not failed. */
function uncheckedWarning(unchecked: string[], refused: true | undefined): string[] {
  if (unchecked.length === 0) return [];
  unchecked = [...new Set(unchecked)];
  const from = refused ? 'a dependency that would be refused (see the routes check)' : 'dependencies (give --store or --registry to resolve them)';
  return [`warning: ${unchecked.length} resource${unchecked.length === 1 ? '' : 's'} could not be checked, as ${unchecked.length === 1 ? 'it' : 'they'} may come from ${from}: ${unchecked.join(', ')}`];
}

/** A dependency nothing provides (not bundled, not in the store or registry, or no version that satisfies): where to look is the matter. */
function isUnfound(error: unknown): boolean {
  return error instanceof PackageNotFoundError || error instanceof RegistryNotConfiguredError || error instanceof UnsatisfiableConstraintError;
}

/** Resources a layer holds and a tombstone above deletes (a file deleted through the reactor, then saved): they answer 404, as meant. */
function deletedWarning(deleted: string[]): string[] {
  return [...new Set(deleted)].map((resource) => `warning: ${resource} is deleted by a layer's tombstone: it answers 404`);
}

/** A content path: visible through the stack, held by a layer but hidden by a tombstone, or neither. */
function visibleIn(stack: LayerStack, layers: readonly Layer[]): (contentPath: string) => boolean | 'deleted' {
  return (path) => (stack.resolve(path) !== undefined ? true : layers.some((layer) => layer.files.has(path)) ? 'deleted' : false);
}
