import StreamZip from 'node-stream-zip';
import { IntegrityError, PackageFormatError, SourceNotFoundError, UnsafeEntryError } from '../../domain/errors.js';
import { sortPaths, unsafePathReason } from '../../domain/package/package-paths.js';
import type { PackageEntry, PackageSource } from '../../application/ports/package-source.js';

/**
 * A `.cap` read in place through its ZIP central directory: nothing is extracted.
 * Entry names are checked when the archive is opened, so no unsafe or duplicate
 * name ever reaches a use case.
 */
export class ZipPackageSource implements PackageSource {
  readonly kind = 'archive';

  private constructor(
    readonly location: string,
    private readonly zip: InstanceType<typeof StreamZip.async>,
    private readonly list: PackageEntry[],
    private readonly names: Set<string>,
  ) {}

  static async open(file: string): Promise<ZipPackageSource> {
    const zip = new StreamZip.async({ file, skipEntryNameValidation: true });
    const seen: string[] = [];
    zip.on('entry', (entry: { name: string }) => seen.push(entry.name));
    let entries: Record<string, { name: string; size: number; isDirectory: boolean }>;
    try {
      entries = await zip.entries();
    } catch (error) {
      await zip.close().catch(() => undefined);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new SourceNotFoundError(`package file not found: ${file}`);
      if (code === 'EISDIR') throw new PackageFormatError(`${file} is a directory, not a .cap archive`);
      throw new PackageFormatError(`${file} is not a ZIP archive (${(error as Error).message})`);
    }
    try {
      const duplicates = sortPaths(new Set(seen.filter((name, index) => seen.indexOf(name) !== index)));
      if (duplicates.length > 0) throw new IntegrityError(`${file} has duplicate entry names: ${duplicates.join(', ')}`, { mismatched: duplicates, missing: [], uncovered: [] });
      const list: PackageEntry[] = [];
      for (const entry of Object.values(entries)) {
        const reason = unsafePathReason(entry.name);
        if (reason) throw new UnsafeEntryError(entry.name, reason);
        if (!entry.isDirectory) list.push({ path: entry.name, size: entry.size });
      }
      const order = new Map(sortPaths(list.map((e) => e.path)).map((path, index) => [path, index]));
      list.sort((a, b) => order.get(a.path)! - order.get(b.path)!);
      return new ZipPackageSource(file, zip, list, new Set(list.map((e) => e.path)));
    } catch (error) {
      await zip.close().catch(() => undefined);
      throw error;
    }
  }

  entries(): readonly PackageEntry[] {
    return this.list;
  }

  has(path: string): boolean {
    return this.names.has(path);
  }

  async read(path: string): Promise<Uint8Array> {
    this.assertEntry(path);
    return this.zip.entryData(path).catch((error: Error) => {
      throw new PackageFormatError(`${this.location}: cannot read ${path}: ${error.message}`);
    });
  }

  async *stream(path: string): AsyncIterable<Uint8Array> {
    this.assertEntry(path);
    let stream: NodeJS.ReadableStream;
    try {
      stream = await this.zip.stream(path);
    } catch (error) {
      throw new PackageFormatError(`${this.location}: cannot read ${path}: ${(error as Error).message}`);
    }
    try {
      for await (const chunk of stream) yield chunk as Uint8Array;
    } catch (error) {
      throw new PackageFormatError(`${this.location}: corrupt entry ${path}: ${(error as Error).message}`);
    }
  }

  async close(): Promise<void> {
    await this.zip.close();
  }

  private assertEntry(path: string): void {
    if (!this.names.has(path)) throw new SourceNotFoundError(`${this.location}: no entry ${path}`);
  }
}
