import { ConfigValidationError } from '../errors.js';
import { defineOwn, isRecord } from '../package/documents.js';
import { SECURITY_FILE, SIGNATURE_FILE, sortPaths, unicodeForm } from '../package/package-paths.js';
import { Spellings } from '../package/spellings.js';

export interface DigitalSignatures {
  publicKey: string;
  signatureFile: string;
  /** `OpenPGP`, or absent for RSA-SHA256 with X.509. */
  certificateType?: 'OpenPGP';
}

export interface Security {
  /** Package-relative path -> SHA-256 hex digest. */
  checksums: Record<string, string>;
  digitalSignatures?: DigitalSignatures;
}

/** Every package file is covered except security.json and signature.sig. */
export function isCoveredByChecksums(path: string): boolean {
  return path !== SECURITY_FILE && path !== SIGNATURE_FILE;
}

/** The files whose bytes, concatenated in this order, form the signed payload. */
export function signedPayloadOrder(checksums: Record<string, string>): readonly string[] {
  return declaredPaths(checksums);
}

/**
 * The sorted paths of each checksums object normalizeSecurity answered, kept beside it: the
 * keys of a 10,000-path object cost milliseconds at start-up, and the listing check and
 * the signature ask for them again.
 */
const sortedPaths = new WeakMap<Record<string, string>, readonly string[]>();

/** The paths checksums declare, in path order. */
export function declaredPaths(checksums: Record<string, string>): readonly string[] {
  return sortedPaths.get(checksums) ?? sortPaths(Object.keys(checksums));
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * The digest in lowercase, or undefined when it is not 64 hex digits. A writer's digests
 * are lowercase already: tested as they are, 10,000 of them need no lowercased copies.
 */
function sha256Hex(digest: string): string | undefined {
  if (SHA256_HEX.test(digest)) return digest;
  const lower = digest.toLowerCase();
  return SHA256_HEX.test(lower) ? lower : undefined;
}

/**
 * Path to lowercase digest, in path order; what is not a digest goes into `issues`. A
 * packer writes them so: then the parsed object is already the answer, and a package's
 * 10,000 checksums are not copied into another. (`__proto__` is a key a copy drops.)
 */
function canonicalChecksums(raw: Record<string, unknown>, issues: string[]): Record<string, string> {
  const written = Object.keys(raw);
  const paths = sortPaths(written);
  let asWritten = true;
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i]!;
    const digest = raw[path];
    const canonical = typeof digest === 'string' ? sha256Hex(digest) : undefined;
    if (canonical === undefined) issues.push(`checksums[${JSON.stringify(path)}]: not a SHA-256 hex digest`);
    if (canonical !== digest || path !== written[i] || path === '__proto__') asWritten = false;
  }
  if (asWritten) {
    sortedPaths.set(raw as Record<string, string>, paths);
    return raw as Record<string, string>;
  }
  const checksums: Record<string, string> = {};
  for (const path of paths) {
    const canonical = typeof raw[path] === 'string' ? sha256Hex(raw[path]) : undefined;
    // Defined, not assigned: assigned, a file named __proto__ would set the prototype and be dropped.
    if (canonical !== undefined) defineOwn(checksums, path, canonical);
  }
  return checksums;
}

/** Other implementations refuse checksums without it; absent on read means SHA-256, as every older package meant. */
export const CHECKSUM_ALGORITHM = 'SHA-256';

export function normalizeSecurity(raw: unknown): Security {
  if (!isRecord(raw) || !isRecord(raw.security)) throw new ConfigValidationError(SECURITY_FILE, ['must be an object with a "security" key']);
  const body = raw.security;
  const issues: string[] = [];
  const checksumsRaw = isRecord(body.integrityChecks) ? body.integrityChecks.checksums : undefined;
  const algorithm = isRecord(body.integrityChecks) ? body.integrityChecks.checksumAlgorithm : undefined;
  if (algorithm !== undefined && algorithm !== CHECKSUM_ALGORITHM)
    issues.push(`security.integrityChecks.checksumAlgorithm: ${JSON.stringify(algorithm)} is not supported; only "${CHECKSUM_ALGORITHM}" is (absent means "${CHECKSUM_ALGORITHM}")`);
  let checksums: Record<string, string> = {};
  if (!isRecord(checksumsRaw)) issues.push('security.integrityChecks.checksums: must be an object of path to SHA-256 hex digest');
  else checksums = canonicalChecksums(checksumsRaw, issues);
  const security: Security = { checksums };
  if (body.digitalSignatures !== undefined) {
    const signatures = body.digitalSignatures;
    if (!isRecord(signatures) || typeof signatures.publicKey !== 'string' || typeof signatures.signatureFile !== 'string') {
      issues.push('security.digitalSignatures: needs "publicKey" and "signatureFile" file names');
    } else if (signatures.certificateType !== undefined && signatures.certificateType !== 'OpenPGP') {
      issues.push('security.digitalSignatures.certificateType: only "OpenPGP" is known (absent means RSA-SHA256/X.509)');
    } else {
      security.digitalSignatures = { publicKey: signatures.publicKey, signatureFile: signatures.signatureFile };
      if (signatures.certificateType === 'OpenPGP') security.digitalSignatures.certificateType = 'OpenPGP';
    }
  }
  if (issues.length > 0) throw new ConfigValidationError(SECURITY_FILE, issues);
  return security;
}

export function securityDocument(security: Security): { security: Record<string, unknown> } {
  const body: Record<string, unknown> = { integrityChecks: { checksumAlgorithm: CHECKSUM_ALGORITHM, checksums: security.checksums } };
  if (security.digitalSignatures) body.digitalSignatures = security.digitalSignatures;
  return { security: body };
}

export interface IntegrityReport {
  mismatched: string[];
  missing: string[];
  uncovered: string[];
}

/** Compares the declared checksums with the digests of the files actually present. */
export function compareChecksums(declared: Record<string, string>, actual: ReadonlyMap<string, string>): IntegrityReport {
  const report: IntegrityReport = { mismatched: [], missing: [], uncovered: [] };
  for (const [path, digest] of Object.entries(declared)) {
    const found = actual.get(path);
    if (found === undefined) report.missing.push(path);
    else if (found !== digest) report.mismatched.push(path);
  }
  for (const path of actual.keys()) if (isCoveredByChecksums(path) && !Object.hasOwn(declared, path)) report.uncovered.push(path);
  report.mismatched = sortPaths(report.mismatched);
  report.missing = sortPaths(report.missing);
  report.uncovered = sortPaths(report.uncovered);
  return report;
}

/**
 * What the list of files alone tells against the declared checksums, before any byte is
 * hashed: declared files that are absent, and files present that no checksum covers.
 * `present` names each file once, as a package's entries do.
 */
export function listingIntegrity(declared: Record<string, string>, present: readonly string[]): IntegrityReport {
  const uncovered: string[] = [];
  let declaredHere = 0;
  for (const path of present) {
    // Own keys only: a file named constructor is no more covered than any other file.
    if (Object.hasOwn(declared, path)) declaredHere++;
    else if (isCoveredByChecksums(path)) uncovered.push(path);
  }
  const listed = declaredPaths(declared);
  // Each path is present once: when every declared path was counted, none is missing, and no set of 10,000 paths is built to show it.
  const missing = declaredHere === listed.length ? [] : absent(listed, present);
  return { mismatched: [], missing: sortPaths(missing), uncovered: sortPaths(uncovered) };
}

function absent(paths: readonly string[], present: readonly string[]): string[] {
  const here = new Set(present);
  return paths.filter((path) => !here.has(path));
}

/** A package path's declared digest: all that serving asks of the checksums. */
export interface DigestLookup {
  get(path: string): string | undefined;
}

/** The checksums as a lookup, read in place: no map of a package's 10,000 digests is built at load. */
export function digestLookup(checksums: Record<string, string>): DigestLookup {
  return { get: (path) => (Object.hasOwn(checksums, path) ? checksums[path] : undefined) };
}

export function isIntact(report: IntegrityReport): boolean {
  return report.mismatched.length + report.missing.length + report.uncovered.length === 0;
}

export function describeIntegrity(report: IntegrityReport): string[] {
  // A file spelled in another Unicode form than its checksum's name (one tool wrote names
  // decomposed, another composed) is one problem, not a missing file and an extra one that look alike.
  const respelled = new Map<string, string>();
  if (report.missing.length > 0 && report.uncovered.length > 0) {
    const uncovered = new Spellings(report.uncovered);
    for (const path of report.missing) {
      const file = uncovered.of(path);
      if (file !== undefined && file !== path) respelled.set(path, file);
    }
  }
  const spelledAgain = new Set(respelled.values());
  return [
    ...report.mismatched.map((path) => `checksum mismatch: ${path}`),
    ...report.missing.map((path) => {
      const file = respelled.get(path);
      return file === undefined ? `missing file: ${path}` : `file spelled in another Unicode form than its checksum names it: ${path}, ${unicodeForm(file)} in the package and ${unicodeForm(path)} in ${SECURITY_FILE}`;
    }),
    ...report.uncovered.filter((path) => !spelledAgain.has(path)).map((path) => `file not covered by checksums: ${path}`),
  ];
}

/** The canonical sorted-key compact JSON of the checksums: the content hash of a directory. */
export function canonicalChecksumJson(checksums: Record<string, string>): string {
  return JSON.stringify(Object.fromEntries(declaredPaths(checksums).map((path) => [path, checksums[path]])));
}
