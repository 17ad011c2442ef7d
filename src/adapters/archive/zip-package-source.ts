import { createReadStream, fstatSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import { crc32, createInflateRaw, inflateRaw, inflateRawSync, type ZlibOptions } from 'node:zlib';
import { ArchiveLimitError, CorruptEntryError, IntegrityError, PackageFormatError, SourceNotFoundError, UnsafeEntryError } from '../../domain/errors.js';
import { DEFAULT_ARCHIVE_LIMITS, checkArchiveLimits, checkEntryCount, type ArchiveLimits } from '../../domain/package/archive-limits.js';
import { CONFIGURATION_FILES, entryNamesProblem, sortByPath, sortPaths, unsafePathReason } from '../../domain/package/package-paths.js';
import type { DeflatedEntry, PackageEntry, PackageSource } from '../../application/ports/package-source.js';
import { readCentralDirectory, ZipStructureError, type CentralEntry } from './zip/central-directory.js';
import { DATA_DESCRIPTOR, DEFLATED, STORED, U32_MAX } from './zip/zip-records.js';
import { readFully } from '../shared/positional-read.js';

const inflate = promisify(inflateRaw);
/**
 * Small entries inflate synchronously: an async inflate builds a stream per call, which
 * measured slower than the work itself (digest of 10,000 entries: 363 ms against 525 ms),
 * and 64 KB inflates in well under a millisecond.
 */
const SYNC_INFLATE_LIMIT = 64 * 1024;
/**
 * So do the configuration documents, whatever their size: they are read at load, when the
 * event loop has nothing else to do but wait for them. A 10,000-file package's three
 * documents of a megabyte or more came 4-5 ms sooner at start that way than through the
 * thread pool.
 */
const INFLATED_AT_ONCE = new Set(CONFIGURATION_FILES);
/** Entries up to this size are read and inflated whole; larger ones stream. */
const WHOLE_ENTRY_LIMIT = 8 * 1024 * 1024;
/** The chunks an entry streams in: a large one is never held whole. */
const STREAM_CHUNK = 256 * 1024;
const LOCAL_HEADER = 30;
/** zlib's smallest chunk size. */
const MIN_CHUNK = 64;
const READ_WINDOW = 2 * 1024 * 1024;
/**
 * The most compressed bytes a directory entry may hold: an empty deflate stream, which
 * Java's `jar` and Python's zipfile write for `META-INF/` and `dir/` in a deflated archive,
 * is 2 bytes (a final empty block), 5 as an empty stored block.
 */
const EMPTY_STREAM_LIMIT = 8;
const READ_WINDOWS = 2;

interface ReadWindow {
  start: number;
  size: number;
  buffer: Buffer;
  /** Resolves with the number of bytes read. */
  read: Promise<number>;
  settled: boolean;
  /** Readers using the bytes right now: the buffer is reused only at zero. */
  users: number;
}

/**
 * A `.cap` read in place through its ZIP central directory: nothing is extracted.
 * The central directory is read in one go; entry data is read positionally and
 * inflated on the thread pool, so several entries decompress at once, and every
 * entry is checked against the size and CRC-32 the central directory declares.
 * Entry names are checked when the archive is opened, so no unsafe or duplicate name
 * ever reaches a use case.
 */
export class ZipPackageSource implements PackageSource {
  readonly kind = 'archive';

  private readonly windows: ReadWindow[] = [];

  private constructor(
    readonly location: string,
    private readonly file: FileHandle,
    /** The file as it was opened: one rewritten in place since reads bytes its directory does not describe. */
    private readonly opened: { size: number; mtimeMs: number },
    private readonly list: PackageEntry[],
    private readonly byPath: Map<string, CentralEntry>,
  ) {}

  /** Opens an archive whose directory keeps within `limits`; ArchiveLimitError otherwise, before anything is inflated. */
  static async open(location: string, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): Promise<ZipPackageSource> {
    const file = await open(location, 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new SourceNotFoundError(`package file not found: ${location}`);
      throw new PackageFormatError(`${location} cannot be opened (${error.message})`);
    });
    try {
      const central = await readDirectory(location, file, (count) => checkEntryCount(location, count, limits));
      const { size, mtimeMs } = await file.stat();
      checkArchiveLimits(location, central, size, limits);
      refuseOverlaps(location, central);
      const source = new ZipPackageSource(location, file, { size, mtimeMs }, ...indexEntries(location, central));
      await source.refuseDirectoriesHoldingData(central);
      return source;
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  entries(): readonly PackageEntry[] {
    return this.list;
  }

  has(path: string): boolean {
    return this.byPath.has(path);
  }

  sizeOf(path: string): number | undefined {
    return this.byPath.get(path)?.size;
  }

  async read(path: string): Promise<Uint8Array> {
    const entry = this.entry(path);
    if (entry.size > WHOLE_ENTRY_LIMIT || entry.compressedSize > WHOLE_ENTRY_LIMIT) {
      const chunks: Uint8Array[] = [];
      for await (const chunk of this.stream(path)) chunks.push(chunk);
      return Buffer.concat(chunks);
    }
    const inflateHere = entry.method === DEFLATED && (entry.size <= SYNC_INFLATE_LIMIT || INFLATED_AT_ONCE.has(path));
    // The raw bytes live in a shared read window: whatever outlives the lease is a copy.
    let data = await this.withRaw(entry, (raw) => {
      if (!inflateHere) return Buffer.from(raw);
      try {
        return inflateRawSync(raw, inflateOptions(entry));
      } catch (error) {
        return this.inflateFailed(entry, error);
      }
    });
    if (entry.method === DEFLATED && !inflateHere) data = await inflate(data, inflateOptions(entry)).catch((error: unknown) => this.inflateFailed(entry, error));
    this.verify(entry, data.length, crc32(data));
    return data;
  }

  async *stream(path: string): AsyncIterable<Uint8Array> {
    const entry = this.entry(path);
    if (entry.size <= WHOLE_ENTRY_LIMIT && entry.compressedSize <= WHOLE_ENTRY_LIMIT) {
      yield await this.read(path);
      return;
    }
    const start = await this.dataStart(entry);
    const raw = createReadStream(this.location, { start, end: start + entry.compressedSize - 1, highWaterMark: STREAM_CHUNK });
    const data = entry.method === STORED ? raw : raw.pipe(createInflateRaw({ chunkSize: STREAM_CHUNK }));
    raw.on('error', (error) => data.destroy(error));
    try {
      yield* this.declared(entry, data);
    } finally {
      raw.destroy();
    }
  }

  /** The entry's bytes as they come, never past its declared size, and held to its size and CRC-32 at the end. */
  private async *declared(entry: CentralEntry, data: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
    let size = 0;
    let crc = 0;
    try {
      for await (const chunk of data) {
        size += chunk.length;
        if (size > entry.size) this.corrupt(entry, 'inflates beyond its declared size');
        crc = crc32(chunk, crc);
        yield chunk;
      }
    } catch (error) {
      if (error instanceof PackageFormatError) throw error;
      this.corrupt(entry, (error as Error).message);
    }
    this.verify(entry, size, crc);
  }

  /**
   * A stored entry's bytes read where they lie. (A range read whole-entry would cost what
   * the entry before it costs: seeking near the end of a stored video read all of it.)
   * Like a range streamed from an entry's start that stops before its end, the bytes are
   * not held to its CRC-32, which covers the whole entry.
   */
  range(path: string, start: number, end: number): AsyncIterable<Uint8Array> | undefined {
    const entry = this.entry(path);
    return entry.method === STORED ? this.storedBytes(entry, start, Math.min(end, entry.size - 1)) : undefined;
  }

  private async *storedBytes(entry: CentralEntry, start: number, end: number): AsyncIterable<Uint8Array> {
    if (end < start) return;
    const data = await this.dataStart(entry);
    const raw = createReadStream(this.location, { start: data + start, end: data + end, highWaterMark: STREAM_CHUNK });
    try {
      yield* raw as AsyncIterable<Buffer>;
    } catch (error) {
      this.corrupt(entry, (error as Error).message);
    } finally {
      raw.destroy();
    }
  }

  deflated(path: string): DeflatedEntry | undefined {
    const entry = this.byPath.get(path);
    if (entry?.method !== DEFLATED) return undefined;
    return {
      size: entry.size,
      crc32: entry.crc,
      compressedSize: entry.compressedSize,
      raw: () => this.withRaw(entry, (raw) => Buffer.from(raw)),
      inflate: (raw) => this.inflateExactly(entry, raw),
    };
  }

  archiveBytes(): AsyncIterable<Uint8Array> {
    return createReadStream(this.location, { highWaterMark: 1024 * 1024 });
  }

  async close(): Promise<void> {
    await this.file.close();
  }

  /**
   * A directory entry whose few compressed bytes (see indexEntries) must inflate to
   * nothing: one that inflates to data would be a file to a reader that trims the slash.
   */
  private async refuseDirectoriesHoldingData(central: readonly CentralEntry[]): Promise<void> {
    for (const entry of central) {
      if (!entry.isDirectory || entry.compressedSize === 0) continue;
      const empty = await this.withRaw(entry, (raw) => {
        try {
          const { buffer, engine } = inflateRawSync(raw, { maxOutputLength: 1, info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
          return buffer.length === 0 && engine.bytesWritten === raw.length;
        } catch {
          return false;
        }
      });
      if (!empty) throw new UnsafeEntryError(entry.name, 'a directory entry (trailing "/") that holds data');
    }
  }

  private entry(path: string): CentralEntry {
    const entry = this.byPath.get(path);
    if (!entry) throw new SourceNotFoundError(`${this.location}: no entry ${path}`);
    if (entry.method !== STORED && entry.method !== DEFLATED) this.corrupt(entry, `unsupported compression method ${entry.method}`);
    return entry;
  }

  /**
   * Runs `use` on the compressed bytes of an entry while they sit in a read window.
   * The local header usually has the central one's extra length, so header and data
   * come in one read; a second read covers the case where it does not.
   */
  private async withRaw<T>(entry: CentralEntry, use: (raw: Buffer) => T): Promise<T> {
    const guessed = LOCAL_HEADER + entry.fnameLen + entry.extraLen + entry.compressedSize;
    const window = this.lease(entry.offset, guessed);
    let skip: number;
    try {
      const bytes = window.buffer.subarray(0, await window.read);
      const at = entry.offset - window.start;
      skip = this.localHeaderLength(entry, bytes, at);
      if (at + skip + entry.compressedSize <= bytes.length) return use(bytes.subarray(at + skip, at + skip + entry.compressedSize));
    } finally {
      window.users--;
    }
    const raw = Buffer.allocUnsafe(entry.compressedSize);
    await this.readFully(raw, entry.offset + skip);
    return use(raw);
  }

  /**
   * A read window covering [offset, offset + length). Entries lie in the file in the
   * order they are usually read, so a scan of the whole package becomes a few large
   * sequential reads. Window buffers are reused once no reader holds them: allocating
   * a fresh one per window left the heap fragmented after a scan (RSS stayed high).
   */
  private lease(offset: number, length: number): ReadWindow {
    let window = this.windows.find((w) => offset >= w.start && offset + length <= w.start + w.size);
    if (!window) {
      const size = Math.max(length, READ_WINDOW);
      const idle = this.windows.findIndex((w) => w.users === 0 && w.settled && w.buffer.length >= size);
      const buffer = idle >= 0 ? this.windows.splice(idle, 1)[0]!.buffer : Buffer.allocUnsafe(size);
      const fresh: ReadWindow = { start: offset, size, buffer, users: 0, settled: false, read: Promise.resolve(0) };
      fresh.read = this.file.read(buffer, 0, size, offset).then(({ bytesRead }) => bytesRead);
      fresh.read.catch(() => undefined).finally(() => (fresh.settled = true));
      this.windows.push(fresh);
      for (let i = 0; this.windows.length > READ_WINDOWS && i < this.windows.length; ) {
        const w = this.windows[i]!;
        if (w !== fresh && w.users === 0 && w.settled) this.windows.splice(i, 1);
        else i++;
      }
      window = fresh;
    }
    window.users++;
    return window;
  }

  /**
   * Inflates raw bytes of `entry` chunk by chunk, requiring every input byte to belong to the deflate
   * stream: zlib stops at the last block and ignores what follows, which a gzip reader
   * would take for the trailer.
   */
  private async *inflateExactly(entry: CentralEntry, raw: Uint8Array): AsyncIterable<Uint8Array> {
    const inflater = createInflateRaw({ chunkSize: STREAM_CHUNK });
    inflater.end(raw);
    try {
      yield* this.declared(entry, inflater);
    } finally {
      inflater.destroy();
    }
    // Counts the input zlib consumed: what follows the last block it leaves unread.
    if (inflater.bytesWritten !== raw.length) this.corrupt(entry, `its deflate stream ends ${raw.length - inflater.bytesWritten} bytes before its data`);
  }

  /** Data starts after the local header, whose extra length may differ from the central one. */
  private async dataStart(entry: CentralEntry): Promise<number> {
    const header = Buffer.alloc(LOCAL_HEADER + entry.fnameLen);
    await this.readFully(header, entry.offset);
    return entry.offset + this.localHeaderLength(entry, header, 0);
  }

  /**
   * Length of the local header at `at` (fixed part, name and extra field), once it agrees
   * with the central record: a streaming reader (Java's ZipInputStream, `unzip` of a
   * pipe) goes by the local header alone, and would write a different name (`../x`)
   * or decode with another method than every reader here. Sizes and CRC-32 are compared
   * when the header carries them (no data descriptor, no zip64 stand-in).
   */
  private localHeaderLength(entry: CentralEntry, bytes: Buffer, at: number): number {
    if (bytes.length - at < LOCAL_HEADER + entry.fnameLen || bytes.readUInt32LE(at) !== 0x04034b50) this.corrupt(entry, 'bad local header');
    const nameLength = bytes.readUInt16LE(at + 26);
    if (nameLength !== entry.fnameLen || bytes.toString('utf8', at + LOCAL_HEADER, at + LOCAL_HEADER + nameLength) !== entry.name) this.corrupt(entry, 'its local header names another file than the central directory');
    if (bytes.readUInt16LE(at + 8) !== entry.method) this.corrupt(entry, 'its local header declares another compression method than the central directory');
    if ((bytes.readUInt16LE(at + 6) & DATA_DESCRIPTOR) === 0) {
      const [crc, compressedSize, size] = [bytes.readUInt32LE(at + 14), bytes.readUInt32LE(at + 18), bytes.readUInt32LE(at + 22)];
      const differs = (local: number, central: number) => local !== central && local !== U32_MAX;
      if (crc !== entry.crc || differs(compressedSize, entry.compressedSize) || differs(size, entry.size)) this.corrupt(entry, 'its local header declares other sizes or another CRC-32 than the central directory');
    }
    return LOCAL_HEADER + nameLength + bytes.readUInt16LE(at + 28);
  }

  private async readFully(buffer: Buffer, position: number): Promise<void> {
    if (!(await readFully(this.file, buffer, position))) throw new PackageFormatError(`${this.location} is truncated`);
  }

  private verify(entry: CentralEntry, size: number, crc: number): void {
    if (size !== entry.size) this.corrupt(entry, `size ${size} differs from the declared ${entry.size}`);
    if (crc !== entry.crc) this.corrupt(entry, 'CRC-32 mismatch');
  }

  /** zlib stops at the declared size (maxOutputLength) with its own words for a Buffer: said as the stream says it. */
  private inflateFailed(entry: CentralEntry, error: unknown): never {
    this.corrupt(entry, (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? 'inflates beyond its declared size' : (error as Error).message);
  }

  private corrupt(entry: CentralEntry, reason: string): never {
    // Named by the package's path only: the message reaches HTTP clients.
    throw new CorruptEntryError(entry.name, this.rewritten() ? `the archive was written over while open (${reason}): put a new .cap in place with mv, never by writing over the open one, and restart` : reason);
  }

  /** Whether the open file changed since it was opened (`cp new.cap served.cap` writes over it in place; `mv` would not). */
  private rewritten(): boolean {
    try {
      const now = fstatSync(this.file.fd);
      return now.size !== this.opened.size || now.mtimeMs !== this.opened.mtimeMs;
    } catch {
      return false;
    }
  }
}

/**
 * Inflation into one buffer of the declared size, never past it. zlib's default 16 KB
 * chunks cost an async inflate one trip to the thread pool each: reading a 1 MB
 * security.json took 13 ms that way and 5 ms in one chunk.
 */
function inflateOptions(entry: CentralEntry): ZlibOptions {
  return { maxOutputLength: Math.max(entry.size, 1), chunkSize: Math.max(Math.min(entry.size, WHOLE_ENTRY_LIMIT), MIN_CHUNK) };
}

async function readDirectory(location: string, file: FileHandle, checkCount: (count: number) => void): Promise<CentralEntry[]> {
  try {
    return await readCentralDirectory(file, checkCount);
  } catch (error) {
    if (error instanceof ArchiveLimitError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') throw new PackageFormatError(`${location} is a directory, not a .cap archive`);
    if (error instanceof ZipStructureError) throw new PackageFormatError(`${location} is not a ZIP archive (${error.message})`);
    throw new PackageFormatError(`${location} cannot be read (${(error as Error).message})`);
  }
}

/**
 * The entry list and lookup of a package: every name is checked for safety, and a name
 * that appears twice is refused, since the two records could hold different bytes.
 */
function indexEntries(location: string, central: CentralEntry[]): [PackageEntry[], Map<string, CentralEntry>] {
  const list: PackageEntry[] = [];
  const byPath = new Map<string, CentralEntry>();
  const duplicates = new Set<string>();
  for (const entry of central) {
    const reason = entry.notUtf8 ? 'its name is not UTF-8 (a reader that takes it for CP437, as ZIP allows, would see another name)' : unsafePathReason(entry.name);
    if (reason) throw new UnsafeEntryError(entry.name, reason);
    if (entry.isDirectory) {
      // A name ending in "/" with bytes: readers that trim the slash would see a second a.txt.
      // An empty deflate stream is no data (jar and zipfile write one); it is inflated once the archive is open.
      const emptyStream = entry.method === DEFLATED && entry.crc === 0 && entry.compressedSize <= EMPTY_STREAM_LIMIT;
      if (entry.size > 0 || (entry.compressedSize > 0 && !emptyStream)) throw new UnsafeEntryError(entry.name, 'a directory entry (trailing "/") that holds data');
      continue;
    }
    // One entry, two readings: unzip makes a link, every reader here a file holding the target's name.
    if (entry.isSymlink) throw new UnsafeEntryError(entry.name, 'a symbolic link entry (unzip would make a link of it)');
    if (entry.encrypted) throw new PackageFormatError(`${location}: entry ${entry.name} uses ZIP encryption, which packages do not`);
    if (byPath.has(entry.name)) duplicates.add(entry.name);
    list.push({ path: entry.name, size: entry.size });
    byPath.set(entry.name, entry);
  }
  if (duplicates.size > 0) {
    const names = sortPaths(duplicates);
    throw new IntegrityError(`${location} has duplicate entry names: ${names.join(', ')}`, { mismatched: names, missing: [], uncovered: [] });
  }
  const clash = entryNamesProblem(list.map((entry) => entry.path), (name) => byPath.has(name));
  if (clash) throw new UnsafeEntryError(clash.name, clash.reason);
  sortByPath(list, (entry) => entry.path);
  return [list, byPath];
}

/**
 * Entries whose data overlap: many records pointing at one deflate stream is how an
 * archive of a few kilobytes declares terabytes. A well-formed archive stores each
 * entry's header and data once, one after another.
 */
function refuseOverlaps(location: string, central: readonly CentralEntry[]): void {
  const ordered = central.filter((entry) => !entry.isDirectory || entry.compressedSize > 0);
  // Writers list entries in the order they wrote them: sorting is for the other archives.
  if (!inOffsetOrder(ordered)) ordered.sort((a, b) => a.offset - b.offset);
  for (let i = 1; i < ordered.length; i++) {
    const previous = ordered[i - 1]!;
    const end = previous.offset + LOCAL_HEADER + previous.fnameLen + previous.compressedSize;
    if (ordered[i]!.offset < end) throw new ArchiveLimitError(`${location}: entries ${previous.name} and ${ordered[i]!.name} share bytes; refused as a likely archive bomb`);
  }
}

function inOffsetOrder(entries: readonly CentralEntry[]): boolean {
  for (let i = 1; i < entries.length; i++) if (entries[i]!.offset < entries[i - 1]!.offset) return false;
  return true;
}
