import type { StoreDirectories, StoreDirectory, StoredPackage, StoreFile } from '../../src/application/ports/package-store.js';
import { packageFileName, parsePackageFileName } from '../../src/domain/dependencies/package-file-name.js';
import type { StoreIndex } from '../../src/domain/dependencies/store-index.js';
import { compareVersions } from '../../src/domain/package/version-range.js';

/** What an install's bytes are named while they are checked, beside their name (the disk's hex is random). */
export const PARTIAL = '.000000000000.pkg-partial';

/**
 * A store directory in memory: `.cap` files by name, each with an identity that changes
 * whenever it is written, and the index install keeps. What a file holds is the test's
 * business (a MemoryOpener may hold the package at the file's path). Every directory opens
 * this one store. Kept honest by test/contracts/store-directory.contract.ts.
 */
export class MemoryStoreDirectory implements StoreDirectory, StoreDirectories {
  readonly stored = new Map<string, { bytes: Uint8Array; identity: string }>();
  /** The index: install rewrites it; a test may set any. */
  indexed: StoreIndex = {};
  private writes = 0;

  constructor(readonly location = '/stores/memory') {}

  open(): StoreDirectory {
    return this;
  }

  /** Puts a file in the store as another tool would, without touching the index. */
  put(name: string, bytes: Uint8Array = new Uint8Array()): string {
    this.stored.set(name, { bytes, identity: `${name}#${++this.writes}` });
    return this.pathOf(name);
  }

  async files(): Promise<StoreFile[]> {
    return [...this.stored.keys()]
      .filter((name) => /\.cap$/i.test(name) && !name.startsWith('.'))
      .sort()
      .map((name) => ({ name, path: this.pathOf(name), identity: this.stored.get(name)!.identity }));
  }

  async index(): Promise<StoreIndex> {
    return { ...this.indexed };
  }

  async install(entry: { guid: string; name: string; version: string }, data: AsyncIterable<Uint8Array>, check?: (path: string) => Promise<void>): Promise<StoredPackage> {
    const name = packageFileName(entry.name, entry.version);
    // Read whole before it appears: a stream that throws leaves nothing.
    const chunks: Uint8Array[] = [];
    for await (const chunk of data) chunks.push(chunk);
    const bytes = Uint8Array.from(Buffer.concat(chunks));
    // Checked beside its name, as on disk: a check that throws leaves what had the name.
    const partial = `${name}${PARTIAL}`;
    this.stored.set(partial, { bytes, identity: partial });
    try {
      await check?.(this.pathOf(partial));
    } finally {
      this.stored.delete(partial);
    }
    const path = this.put(name, bytes);
    // As on disk: entries whose file is gone are dropped, and the GUID names the newest version of the name.
    const kept = Object.fromEntries(Object.entries(this.indexed).filter(([, file]) => this.stored.has(file)));
    const newest = [...this.stored.keys()]
      .map((file) => parsePackageFileName(file))
      .filter((parsed) => parsed?.name === entry.name)
      .map((parsed) => parsed!.version)
      .sort(compareVersions)
      .at(-1)!;
    this.indexed = { ...kept, [entry.guid]: packageFileName(entry.name, newest) };
    return { version: entry.version, path };
  }

  async reindex(guid: string, file: string | undefined): Promise<void> {
    // As install: entries whose file is gone are dropped.
    const kept = Object.fromEntries(Object.entries(this.indexed).filter(([indexed, name]) => indexed !== guid && this.stored.has(name)));
    this.indexed = file === undefined ? kept : { ...kept, [guid]: file };
  }

  private pathOf(name: string): string {
    return `${this.location}/${name}`;
  }
}
