import { createHash, randomBytes, type Hash } from 'node:crypto';
import { open, access, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { pipeline } from 'node:stream/promises';
import { crc32, createDeflateRaw, createInflateRaw, deflateRaw } from 'node:zlib';
import { OutputExistsError, UsageError } from '../../domain/errors.js';
import { archiveLimitsFrom, checkArchiveToWrite, mustStore, type ArchiveLimits } from '../../domain/package/archive-limits.js';
import type { ArchiveCreateOptions, ArchiveEntryOptions, ArchiveSink, ArchiveWriter } from '../../application/ports/archive-writer.js';
import { DEFLATED, LOCAL_HEADER_SIZE, STORED, centralHeader, endRecords, localHeader, streamedLocalHeader, type CentralRecord } from './zip/zip-records.js';
import { makeDirectories } from '../shared/make-directories.js';
import { folderNotWritable, storageFailure } from '../shared/storage-failure.js';
import { unfinished } from '../shared/unfinished-paths.js';
import { writeAll } from '../shared/write-all.js';

const deflate = promisify(deflateRaw);
const LEVEL = 6;
/** Entries up to this size are compressed whole, several at once; larger ones stream. */
const WHOLE_ENTRY_LIMIT = 8 * 1024 * 1024;
/** Bytes of entries read but not yet written: bounds memory however large the package. */
const IN_FLIGHT_BUDGET = 24 * 1024 * 1024;
const WRITE_BATCH = 1024 * 1024;

/**
 * Reproducible ZIP archives: entries in the order given, fixed timestamps and modes,
 * deflate level 6, and an entry stored when deflating would not make it smaller.
 * Written by hand rather than with archiver or yazl: both compress one entry at a
 * time and compute CRC-32 in JavaScript, which measured 3.7x the `zip -r` +
 * `sha256sum` floor on 10,000 files; here entries deflate in parallel on the thread
 * pool and CRC-32 is zlib's. The archive is written to a hidden sibling and renamed
 * into place on commit, so a failed or aborted pack leaves nothing behind.
 * What it writes keeps to the archive limits every reader holds archives to (the same
 * PKG_MAX_* values): an entry that deflated would expand past the ratio is stored, and an
 * archive with too many entries or bytes is refused with ArchiveLimitError.
 */
export class ZipArchiveWriter implements ArchiveWriter {
  constructor(private readonly limits: () => ArchiveLimits = () => archiveLimitsFrom(process.env)) {}

  async create(directory: string, fileName: string, options: ArchiveCreateOptions): Promise<ArchiveSink> {
    const destination = resolve(directory, fileName);
    const limits = this.limits();
    if (options.expected) checkArchiveToWrite(destination, options.expected, limits);
    if (!options.overwrite && (await exists(destination))) throw new OutputExistsError(`${destination} exists; use --force to overwrite it`);
    const temporary = join(directory, `.${fileName}.${randomBytes(6).toString('hex')}.partial`);
    // Watched before it exists: a Ctrl-C while a large package is written must not leave its bytes (a plaintext's, maybe) behind.
    unfinished.add(temporary);
    try {
      await makeDirectories(directory);
      return new ZipSink(destination, temporary, await open(temporary, 'wx+', options.ownerOnly ? 0o600 : 0o644), limits);
    } catch (error) {
      unfinished.delete(temporary);
      throw unwritable(destination, error);
    }
  }
}

/**
 * A file system's refusal to put the archive in place, never an unexpected error: a full
 * or failing disk, or a folder its user may not write, as WriteFailedError (as every other
 * writer says them), a path the user can change (a file in the way) as UsageError.
 */
function unwritable(destination: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === undefined) return error;
  const where = `cannot write ${basename(destination)} into ${dirname(destination)}`;
  return storageFailure(where, error) ?? folderNotWritable(where, 'the folder', error) ?? new UsageError(`${where}: ${code}`, { cause: error });
}

class ZipSink implements ArchiveSink {
  private readonly records: CentralRecord[] = [];
  private readonly hash: Hash = createHash('sha256');
  private offset = 0;
  private batch: Buffer[] = [];
  private batchBytes = 0;
  /** Where the bytes not yet hashed start: a streamed entry's, until its header is final. */
  private unhashedFrom: number | undefined;
  /** Entries and their size as added: held to the entry and size limits. */
  private added = { entries: 0, expandedSize: 0 };
  /** Size of the entries written, in order: with `offset`, what the ratio limit is kept on. */
  private expandedWritten = 0;
  /** Writes happen strictly in entry order along this chain; compression runs ahead of it. */
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly destination: string,
    private readonly temporary: string,
    private readonly file: FileHandle,
    private readonly limits: ArchiveLimits,
  ) {}

  async add(path: string, data: Uint8Array | AsyncIterable<Uint8Array>, options: ArchiveEntryOptions): Promise<void> {
    this.throwIfFailed();
    this.count(1, 0);
    const name = Buffer.from(path, 'utf8');
    if (data instanceof Uint8Array) {
      this.count(0, data.byteLength);
      return this.addWhole(name, Buffer.from(data.buffer, data.byteOffset, data.byteLength), options.store);
    }
    const iterator = data[Symbol.asyncIterator]();
    const chunks: Buffer[] = [];
    let size = 0;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
      this.count(0, chunk.length);
      chunks.push(chunk);
      size += chunk.length;
      if (size > WHOLE_ENTRY_LIMIT) return this.addStreamed(name, chunks, this.counting(iterator), options.store);
    }
    return this.addWhole(name, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size), options.store);
  }

  private async addWhole(name: Buffer, bytes: Buffer, store: boolean): Promise<void> {
    await this.reserve(bytes.length);
    const crc = crc32(bytes);
    const compressed = store || bytes.length === 0 ? Promise.resolve(undefined) : deflate(bytes, { level: LEVEL });
    compressed.catch(() => undefined);
    this.enqueue(async () => {
      try {
        const deflated = await compressed;
        const writtenAfter = this.offset + LOCAL_HEADER_SIZE + name.length + (deflated?.length ?? 0);
        const useDeflate = deflated !== undefined && deflated.length < bytes.length && !mustStore({ size: bytes.length, deflatedSize: deflated.length }, { expandedBefore: this.expandedWritten, writtenAfter }, this.limits);
        const body = useDeflate ? deflated : bytes;
        const method = useDeflate ? DEFLATED : STORED;
        this.expandedWritten += bytes.length;
        this.records.push({ name, method, crc, compressedSize: body.length, size: bytes.length, offset: this.offset, streamed: false });
        await this.write(localHeader(name, method, crc, body.length, bytes.length));
        await this.write(body);
      } finally {
        this.release(bytes.length);
      }
    });
  }

  /**
   * A large entry: written as it is read, once every entry before it is out. Its local
   * header goes out with zeros and is written again in place once its CRC-32 and sizes
   * are known; the archive's SHA-256 takes the entry's bytes from the file then (from the
   * page cache, where they were just written), since its header comes before them.
   */
  private async addStreamed(name: Buffer, head: Buffer[], rest: AsyncIterator<Uint8Array>, store: boolean): Promise<void> {
    const entry = this.chain.then(async () => {
      const method = store ? STORED : DEFLATED;
      const record: CentralRecord = { name, method, crc: 0, compressedSize: 0, size: 0, offset: this.offset, streamed: true };
      this.unhashedFrom = record.offset;
      await this.write(streamedLocalHeader(name, method));
      async function* counted(): AsyncIterable<Buffer> {
        for await (const chunk of resume(head, rest)) {
          record.crc = crc32(chunk, record.crc);
          record.size += chunk.length;
          yield chunk;
        }
      }
      const emit = async (output: AsyncIterable<Buffer>) => {
        for await (const chunk of output) {
          record.compressedSize += chunk.length;
          await this.write(chunk);
        }
      };
      if (store) await emit(counted());
      else await pipeline(counted(), createDeflateRaw({ level: LEVEL, chunkSize: 256 * 1024 }), emit);
      await this.flush();
      const deflatedSize = { size: record.size, deflatedSize: record.compressedSize };
      if (!store && mustStore(deflatedSize, { expandedBefore: this.expandedWritten, writtenAfter: this.offset }, this.limits)) await this.storeInstead(record);
      this.expandedWritten += record.size;
      await this.written(writeAll(this.file, streamedLocalHeader(name, record.method, record.crc, record.compressedSize, record.size), record.offset));
      await this.hashWritten(record.offset);
      this.records.push(record);
    });
    this.chain = entry.catch((error) => this.fail(error));
    await entry;
  }

  /**
   * A streamed entry that deflated past the ratio limit (a disk image of zeros), rewritten
   * stored: its deflated bytes are copied to past where the stored bytes will end, then
   * inflated from there into place. Rare, so a second pass here costs nothing that matters.
   */
  private async storeInstead(record: CentralRecord): Promise<void> {
    const dataStart = this.offset - record.compressedSize;
    const copyAt = dataStart + record.size;
    await this.writeAt(this.readBack(dataStart, this.offset), copyAt);
    await pipeline(this.readBack(copyAt, copyAt + record.compressedSize), createInflateRaw({ chunkSize: 256 * 1024 }), (inflated) => this.writeAt(inflated, dataStart));
    await this.file.truncate(copyAt);
    this.offset = copyAt;
    record.method = STORED;
    record.compressedSize = record.size;
  }

  /** Hashes the file's bytes from `start` to what is written, and hashes writes again as they come. */
  private async hashWritten(start: number): Promise<void> {
    for await (const chunk of this.readBack(start, this.offset)) this.hash.update(chunk);
    this.unhashedFrom = undefined;
  }

  /** Bytes already in the file, read back. */
  private async *readBack(start: number, end: number): AsyncIterable<Buffer> {
    for (let at = start; at < end; ) {
      const { buffer, bytesRead } = await this.file.read(Buffer.allocUnsafe(Math.min(WRITE_BATCH, end - at)), 0, undefined, at);
      if (bytesRead === 0) throw new Error(`${this.temporary} ends before the bytes written to it`);
      yield buffer.subarray(0, bytesRead);
      at += bytesRead;
    }
  }

  /** Writes chunks to the file from `position` on, past the write batching (which only appends). */
  private async writeAt(chunks: AsyncIterable<Buffer>, position: number): Promise<void> {
    for await (const chunk of chunks) {
      await this.written(writeAll(this.file, chunk, position));
      position += chunk.length;
    }
  }

  /** A write the file system refused: a full disk (ENOSPC, EDQUOT) or a failing one is the user's to see named, never an unexpected error. */
  private written<T>(write: Promise<T>): Promise<T> {
    return write.catch((error: unknown) => {
      throw unwritable(this.destination, error);
    });
  }

  /** Counts what is added against the entry and size limits, before it is written. */
  private count(entries: number, bytes: number): void {
    this.added.entries += entries;
    this.added.expandedSize += bytes;
    checkArchiveToWrite(this.destination, this.added, this.limits);
  }

  /** The rest of an entry's stream, counted as it is read. */
  private counting(rest: AsyncIterator<Uint8Array>): AsyncIterator<Uint8Array> {
    return {
      next: async () => {
        const next = await rest.next();
        if (!next.done) this.count(0, next.value.byteLength);
        return next;
      },
    };
  }

  async commit(): Promise<{ path: string; size: number; sha256: string }> {
    await this.chain;
    this.throwIfFailed();
    const centralOffset = this.offset;
    for (const record of this.records) await this.write(centralHeader(record));
    await this.write(endRecords(this.records.length, centralOffset, this.offset - centralOffset));
    await this.flush();
    await this.written(this.file.close());
    try {
      await rename(this.temporary, this.destination);
      unfinished.delete(this.temporary);
    } catch (error) {
      // A folder where the archive goes (EISDIR): the temporary is left for abort() to remove.
      throw unwritable(this.destination, error);
    }
    return { path: this.destination, size: this.offset, sha256: this.hash.digest('hex') };
  }

  async abort(): Promise<void> {
    this.failure ??= new Error('aborted');
    await this.chain.catch(() => undefined);
    await this.file.close().catch(() => undefined);
    await rm(this.temporary, { force: true });
    unfinished.delete(this.temporary);
  }

  private enqueue(step: () => Promise<void>): void {
    this.chain = this.chain.then(() => (this.failure ? undefined : step())).catch((error) => this.fail(error));
  }

  private async write(buffer: Buffer): Promise<void> {
    if (this.unhashedFrom === undefined) this.hash.update(buffer);
    this.offset += buffer.length;
    this.batch.push(buffer);
    this.batchBytes += buffer.length;
    if (this.batchBytes >= WRITE_BATCH) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const buffers = this.batch;
    const total = this.batchBytes;
    const position = this.offset - total;
    this.batch = [];
    this.batchBytes = 0;
    // Positioned: a streamed entry's header is written again behind the end.
    await this.written(
      this.file.writev(buffers, position).then(({ bytesWritten }) => {
        // A disk filling up takes what fits: the rest is written again, where it fails with ENOSPC.
        if (bytesWritten < total) return writeAll(this.file, Buffer.concat(buffers).subarray(bytesWritten), position + bytesWritten);
      }),
    );
  }

  private async reserve(bytes: number): Promise<void> {
    while (this.inFlight > 0 && this.inFlight + bytes > IN_FLIGHT_BUDGET) await new Promise<void>((r) => this.waiting.push(r));
    this.inFlight += bytes;
  }

  private release(bytes: number): void {
    this.inFlight -= bytes;
    this.waiting.splice(0).forEach((wake) => wake());
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    this.waiting.splice(0).forEach((wake) => wake());
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }
}

/** The chunks already read, then the rest of the stream. */
async function* resume(head: Buffer[], rest: AsyncIterator<Uint8Array>): AsyncIterable<Buffer> {
  yield* head;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
