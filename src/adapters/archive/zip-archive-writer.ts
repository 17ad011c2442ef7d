import { ZipArchive } from 'archiver';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { access, mkdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { OutputExistsError } from '../../domain/errors.js';
import type { ArchiveEntryOptions, ArchiveSink, ArchiveWriter } from '../../application/ports/archive-writer.js';

/** Local-time components, so the DOS timestamp is the same in every time zone. */
const FIXED_DATE = new Date(1980, 0, 1, 0, 0, 0);
const FILE_MODE = 0o644;

/**
 * Reproducible ZIP archives through archiver: fixed timestamps and modes, entries in
 * the order given. The archive is written to a hidden sibling and renamed into place
 * on commit, so a failed or aborted pack leaves nothing behind.
 */
export class ZipArchiveWriter implements ArchiveWriter {
  async create(directory: string, fileName: string, options: { overwrite: boolean }): Promise<ArchiveSink> {
    const destination = resolve(directory, fileName);
    if (!options.overwrite && (await exists(destination))) throw new OutputExistsError(`${destination} exists; use --force to overwrite it`);
    await mkdir(directory, { recursive: true });
    return new ZipArchiveSink(destination, join(directory, `.${fileName}.${randomBytes(6).toString('hex')}.partial`));
  }
}

class ZipArchiveSink implements ArchiveSink {
  private readonly archive = new ZipArchive({ zlib: { level: 6 }, highWaterMark: 1024 * 1024 });
  private readonly output;
  private readonly hash = createHash('sha256');
  private failure: Error | undefined;
  private readonly written: Promise<void>;
  private pending: { name: string; resolve: () => void; reject: (error: Error) => void } | undefined;

  constructor(
    private readonly destination: string,
    private readonly temporary: string,
  ) {
    this.output = createWriteStream(temporary, { mode: FILE_MODE });
    this.archive.on('data', (chunk: Buffer) => this.hash.update(chunk));
    this.archive.on('entry', (entry) => {
      if (this.pending?.name === entry.name) this.pending.resolve();
    });
    this.archive.on('error', (error: Error) => this.fail(error));
    this.archive.on('warning', (error: Error) => this.fail(error));
    this.written = new Promise((resolveWritten, rejectWritten) => {
      this.output.on('close', resolveWritten);
      this.output.on('error', (error) => {
        this.fail(error);
        rejectWritten(error);
      });
    });
    this.written.catch(() => undefined);
    this.archive.pipe(this.output);
  }

  add(path: string, data: Uint8Array | AsyncIterable<Uint8Array>, options: ArchiveEntryOptions): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const source = data instanceof Uint8Array ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : Readable.from(data, { objectMode: false });
    return new Promise((resolveEntry, rejectEntry) => {
      this.pending = { name: path, resolve: resolveEntry, reject: rejectEntry };
      if (source instanceof Readable) source.on('error', (error) => this.fail(error));
      this.archive.append(source, { name: path, date: FIXED_DATE, mode: FILE_MODE, store: options.store });
    });
  }

  async commit(): Promise<{ path: string; size: number; sha256: string }> {
    if (this.failure) throw this.failure;
    await this.archive.finalize();
    await this.written;
    if (this.failure) throw this.failure;
    await rename(this.temporary, this.destination);
    return { path: this.destination, size: (await stat(this.destination)).size, sha256: this.hash.digest('hex') };
  }

  async abort(): Promise<void> {
    this.archive.abort();
    this.output.destroy();
    await rm(this.temporary, { force: true });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.pending?.reject(error);
    this.pending = undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
