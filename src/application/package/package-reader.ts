import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../domain/data/json-depth.js';
import { nestedPackageHint } from '../../domain/package/nested-package.js';
import { ConfigParseError, PackageFormatError } from '../../domain/errors.js';
import { normalizeAuthentication, type Authentication } from '../../domain/package/authentication.js';
import { decodeUtf8, parseDocument } from '../../domain/package/documents.js';
import { generateManifest, normalizeManifest, type Manifest } from '../../domain/package/manifest.js';
import { detectType, typeByExtension } from '../../domain/package/media-types.js';
import { metadataGaps, normalizeMetadata, type Metadata } from '../../domain/package/metadata.js';
import { AUTHENTICATION_FILE, MANIFEST_FILE, METADATA_FILE, ROUTES_FILE, SECURITY_FILE, STORAGE_FILE, isContentPath } from '../../domain/package/package-paths.js';
import { generateRoutes, normalizeRoutes, type Routes } from '../../domain/package/routes.js';
import { normalizeStorage, type Storage } from '../../domain/package/storage.js';
import { normalizeSecurity, type Security } from '../../domain/integrity/security.js';
import type { PackageSource } from '../ports/package-source.js';

/** A package's configuration in canonical form, with what was generated because it was absent. */
export interface PackageModel {
  metadata: Metadata;
  manifest: Manifest;
  manifestGenerated: boolean;
  routes: Routes;
  routesGenerated: boolean;
  /** Generated route paths that two files claimed; the first one won. */
  routeCollisions: string[];
  storage?: Storage;
  security?: Security;
  authentication?: Authentication;
  /** What reading accepted but a current package would not have (0.1.x metadata without identifiers). */
  warnings: string[];
}

const decoder = new TextDecoder('utf-8');

/**
 * The most a configuration document (metadata, manifest, routes, security, a schema, ...)
 * may hold: a package of 100,000 files has routes of about 15 MB. A stranger's archive can
 * declare a 600 MB routes.json in 8 MB; read whole, it would take gigabytes before parsing
 * failed past the engine's longest string.
 */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;
/** The most a dataset's file may hold (about 400,000 items, served from memory), and the most of a file read whole as text: one a package test reads, one validate scans. */
export const MAX_DATA_DOCUMENT_BYTES = 128 * 1024 * 1024;

/** A file of the package as text: ConfigParseError, before anything is read, past `limit` bytes. */
export async function readText(source: PackageSource, path: string, limit = MAX_DOCUMENT_BYTES): Promise<string> {
  return decoder.decode(await readBounded(source, path, limit));
}

/** A dataset's database file (SQLite), read whole: bounded as a dataset's JSON file is. */
export function readDataFile(source: PackageSource, path: string): Promise<Uint8Array> {
  return readBounded(source, path, MAX_DATA_DOCUMENT_BYTES);
}

/** A file of the package read whole: ConfigParseError, before anything is read, past `limit` bytes (`what` names the kind of file in it). */
export async function readBounded(source: PackageSource, path: string, limit: number, what = 'such a file'): Promise<Uint8Array> {
  const declared = source.sizeOf(path);
  if (declared !== undefined && declared > limit) throw tooLarge(path, declared, limit, what);
  const bytes = await source.read(path);
  // A folder's file may have grown since it was listed.
  if (bytes.length > limit) throw tooLarge(path, bytes.length, limit, what);
  return bytes;
}

function tooLarge(path: string, size: number, limit: number, what: string): ConfigParseError {
  return new ConfigParseError(path, `holds ${size} bytes, more than the ${limit / 1024 / 1024} MiB ${what} may (refused unread)`);
}

/** A JSON or YAML file of the package as text: ConfigParseError past `limit` bytes or when it is not UTF-8. */
export async function readDocumentText(source: PackageSource, path: string, limit = MAX_DOCUMENT_BYTES): Promise<string> {
  return decodeUtf8(await readBounded(source, path, limit), path);
}

/** Reads and parses a JSON or YAML configuration file of the package (ConfigParseError on bad syntax, a repeated key, bytes not UTF-8, or size). */
export async function readDocument(source: PackageSource, path: string): Promise<unknown> {
  return parseDocument(await readDocumentText(source, path), path);
}

/** How deep a dataset's file may nest: a written item's limit, inside a collection's list or a document's lists. */
export const MAX_DATA_FILE_DEPTH = MAX_JSON_DEPTH + 2;

/**
 * A dataset's file. Its values are answered as JSON and checked against schemas, so it is
 * bounded as a written item is: deeper, every answer of the collection would exhaust the
 * stack of JSON.stringify (a 500 on each request).
 */
export async function readDataDocument(source: PackageSource, path: string): Promise<unknown> {
  const value = parseDocument(await readDocumentText(source, path, MAX_DATA_DOCUMENT_BYTES), path, { lastKeyWins: true });
  if (nestsDeeperThan(value, MAX_DATA_FILE_DEPTH)) throw new ConfigParseError(path, `nests deeper than ${MAX_DATA_FILE_DEPTH} levels of arrays and objects (an item may nest ${MAX_JSON_DEPTH})`);
  return value;
}

export async function readOptional<T>(source: PackageSource, path: string, normalize: (raw: unknown) => T): Promise<T | undefined> {
  return source.has(path) ? normalize(await readDocument(source, path)) : undefined;
}

export async function readMetadata(source: PackageSource): Promise<Metadata> {
  assertPackage(source);
  return normalizeMetadata(await readDocument(source, METADATA_FILE));
}

/** A package has a metadata.json at its root: an archive of anything else (or of a folder holding the package) is refused. */
export function assertPackage(source: PackageSource): void {
  if (!source.has(METADATA_FILE)) throw new PackageFormatError(`${source.location} has no ${METADATA_FILE}${nestedPackageHint(source.entries().map(({ path }) => path))}`);
}

export interface ReadOptions {
  /** Pack skips security.json: it replaces it anyway, so a stale one must not stop it. */
  security?: boolean;
  /**
   * `serving`: the reactor mirrors content/ and finds types itself, so an absent manifest
   * stays empty and absent routes are only the aliases (`/`, extensionless HTML, datasets).
   */
  generate?: 'full' | 'serving';
}

/** Reads every configuration file, generating manifest and routes when they are absent. */
export async function readPackage(source: PackageSource, options: ReadOptions = {}): Promise<PackageModel> {
  const { security: readSecurity = true, generate = 'full' } = options;
  const metadata = await readMetadata(source);
  const storage = await readOptional(source, STORAGE_FILE, normalizeStorage);
  const security = readSecurity ? await readOptional(source, SECURITY_FILE, normalizeSecurity) : undefined;
  const authentication = await readOptional(source, AUTHENTICATION_FILE, normalizeAuthentication);
  const manifest = await readOptional(source, MANIFEST_FILE, normalizeManifest);
  const routes = await readOptional(source, ROUTES_FILE, normalizeRoutes);
  const generated = routes ? undefined : generateRoutes(source.entries().map((entry) => entry.path), Object.keys(storage?.dataSets ?? {}), { aliasesOnly: generate === 'serving' });
  const model: PackageModel = {
    metadata,
    manifest: manifest ?? (generate === 'serving' ? {} : await generateManifestFor(source)),
    manifestGenerated: manifest === undefined,
    routes: routes ?? generated!.routes,
    routesGenerated: routes === undefined,
    routeCollisions: generated?.collisions ?? [],
    warnings: metadataGaps(metadata).map((gap) => `${METADATA_FILE}: ${gap}`),
  };
  if (storage) model.storage = storage;
  if (security) model.security = security;
  if (authentication) model.authentication = authentication;
  return model;
}

/** MIME types by extension; files without a known extension are sniffed from their first bytes. */
export async function generateManifestFor(source: PackageSource): Promise<Manifest> {
  const types = new Map<string, string>();
  for (const { path } of source.entries()) {
    if (!isContentPath(path)) continue;
    types.set(path, typeByExtension(path) ?? detectType(path, await readHead(source, path)));
  }
  return generateManifest(types.keys(), (path) => types.get(path)!);
}

async function readHead(source: PackageSource, path: string): Promise<Uint8Array> {
  for await (const chunk of source.stream(path)) return chunk.subarray(0, 512);
  return new Uint8Array();
}

export function toJsonBytes(document: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(document, null, 2) + '\n');
}
