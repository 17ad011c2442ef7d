import { ArchiveLimitError, UsageError } from '../errors.js';

/** How much an archive may expand to: a 1 MB file that inflates to 40 GiB is a bomb, not a package. */
export interface ArchiveLimits {
  /** Sum of the entries' sizes once inflated. */
  maxExpandedSize: number;
  /** Inflated size over compressed size, for each entry over RATIO_FLOOR and for the whole archive. */
  maxRatio: number;
  maxEntries: number;
}

const GIB = 1024 * 1024 * 1024;
/** Generous for every real package (text compresses 3 to 20 times; a zero-filled file about 1000). */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxExpandedSize: 4 * GIB, maxRatio: 1000, maxEntries: 100_000 };
/** Small entries may compress as well as they like: they cannot add up to much. */
export const RATIO_FLOOR = 1024 * 1024;

export interface SizedEntry {
  name: string;
  size: number;
  compressedSize: number;
}

/** Checks what the central directory declares; the reader then never inflates past a declared size. */
export function checkArchiveLimits(location: string, entries: readonly SizedEntry[], archiveSize: number, limits: ArchiveLimits): void {
  const refuse = (reason: string): never => refuseArchive(location, reason);
  checkEntryCount(location, entries.length, limits);
  let total = 0;
  for (const entry of entries) {
    total += entry.size;
    if (entry.size > RATIO_FLOOR && expandsPast(entry.size, entry.compressedSize, limits.maxRatio)) {
      refuse(`entry ${entry.name} expands from ${entry.compressedSize} to ${entry.size} bytes, more than ${limits.maxRatio} times`);
    }
  }
  const tooLarge = expandedSizeProblem(total, limits);
  if (tooLarge) refuse(tooLarge);
  if (total > RATIO_FLOOR && expandsPast(total, archiveSize, limits.maxRatio)) refuse(`its ${archiveSize} bytes expand to ${total}, more than ${limits.maxRatio} times`);
}

/**
 * What a writer checks of an archive it is about to write, or is writing (`entries` and
 * `expandedSize` so far): every reader would refuse one past the entry or size limit, so
 * it is not written. (The ratio limit it keeps by storing: see mustStore.)
 */
export function checkArchiveToWrite(location: string, archive: { entries: number; expandedSize: number }, limits: ArchiveLimits): void {
  const problem = entryCountProblem(archive.entries, limits) ?? expandedSizeProblem(archive.expandedSize, limits);
  if (problem) throw new ArchiveLimitError(`${location}: ${problem}; not written, since every reader would refuse it (limits: --max-expanded-size, --max-entries)`);
}

/**
 * Whether a writer must store an entry rather than deflate it: deflated, the entry would
 * expand past the ratio limit (when over RATIO_FLOOR), or the archive so far would.
 * `expandedBefore` is the size of the entries before it, `writtenAfter` the archive's bytes
 * with it deflated. An archive each of whose entries kept to this keeps to the
 * whole-archive rule as well, whatever follows: a stored entry never expands.
 */
export function mustStore(entry: { size: number; deflatedSize: number }, archive: { expandedBefore: number; writtenAfter: number }, limits: ArchiveLimits): boolean {
  return (entry.size > RATIO_FLOOR && expandsPast(entry.size, entry.deflatedSize, limits.maxRatio)) || expandsPast(archive.expandedBefore + entry.size, archive.writtenAfter, limits.maxRatio);
}

function expandsPast(size: number, compressedSize: number, maxRatio: number): boolean {
  return size > Math.max(compressedSize, 1) * maxRatio;
}

/** The entry count an archive's end record declares, checked before its directory is read (a million records take 340 MB). */
export function checkEntryCount(location: string, entries: number, limits: ArchiveLimits): void {
  const tooMany = entryCountProblem(entries, limits);
  if (tooMany) refuseArchive(location, tooMany);
}

function refuseArchive(location: string, reason: string): never {
  throw new ArchiveLimitError(`${location}: ${reason}; refused as a likely archive bomb (limits: --max-expanded-size, --max-ratio, --max-entries)`);
}

function entryCountProblem(entries: number, limits: ArchiveLimits): string | undefined {
  return entries > limits.maxEntries ? `${entries} entries, more than the limit of ${limits.maxEntries}` : undefined;
}

function expandedSizeProblem(total: number, limits: ArchiveLimits): string | undefined {
  return total > limits.maxExpandedSize ? `its entries expand to ${total} bytes, more than the limit of ${limits.maxExpandedSize}` : undefined;
}

/** `PKG_MAX_EXPANDED_SIZE`, `PKG_MAX_RATIO`, `PKG_MAX_ENTRIES` over the defaults; a value that is not a positive whole number is a usage error. */
export function archiveLimitsFrom(env: Record<string, string | undefined>): ArchiveLimits {
  const read = (name: string, fallback: number, size: boolean): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    const value = parseLimit(text, size);
    if (value === undefined) throw new UsageError(`${name}=${JSON.stringify(text)} ${limitWording(size)}`);
    return value;
  };
  return {
    maxExpandedSize: read('PKG_MAX_EXPANDED_SIZE', DEFAULT_ARCHIVE_LIMITS.maxExpandedSize, true),
    maxRatio: read('PKG_MAX_RATIO', DEFAULT_ARCHIVE_LIMITS.maxRatio, false),
    maxEntries: read('PKG_MAX_ENTRIES', DEFAULT_ARCHIVE_LIMITS.maxEntries, false),
  };
}

/** A limit as written: a size may end in K, M, G or T; a count or a ratio is a plain whole number. */
export function parseLimit(text: string, size: boolean): number | undefined {
  return size || /^\s*\d+\s*$/.test(text) ? parseSize(text) : undefined;
}

export function limitWording(size: boolean): string {
  return `must be a positive whole number${size ? ' (sizes may end in K, M, G or T)' : ''}`;
}

/** `4096`, `512K`, `16M`, `4G`, `1T` (powers of 1024). */
export function parseSize(text: string): number | undefined {
  const match = /^(\d+)([KMGT]?)i?B?$/i.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]) * 1024 ** ' KMGT'.indexOf((match[2] || ' ').toUpperCase());
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}
