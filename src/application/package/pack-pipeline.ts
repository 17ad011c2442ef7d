import { defineOwn } from '../../domain/package/documents.js';
import { UnsafeEntryError } from '../../domain/errors.js';
import { isCoveredByChecksums, securityDocument, type DigitalSignatures } from '../../domain/integrity/security.js';
import { isIncompressible } from '../../domain/package/media-types.js';
import { SECURITY_FILE, entryNamesProblem, sortByPath, unsafePathReason } from '../../domain/package/package-paths.js';
import type { ArchiveWriter } from '../ports/archive-writer.js';
import type { Hasher } from '../ports/hasher.js';
import { collectBytes } from '../shared/bytes.js';
import { tap } from '../shared/tap.js';
import { toJsonBytes } from './package-reader.js';

export interface PackFile {
  path: string;
  /** Bytes, or a way to stream them when the entry's turn comes. */
  data: Uint8Array | (() => AsyncIterable<Uint8Array>);
  /** When known, small files are read ahead of their turn so reads overlap. */
  size?: number;
}

/** Small files read ahead of the one being written: reads overlap with compression and hashing. */
const READ_AHEAD_FILES = 16;
const READ_AHEAD_MAX_SIZE = 1024 * 1024;

export interface PackTarget {
  directory: string;
  fileName: string;
  overwrite: boolean;
  /** See ArchiveCreateOptions. */
  ownerOnly?: boolean;
}

export interface PackResult {
  path: string;
  size: number;
  /** SHA-256 of the archive file. */
  sha256: string;
  /** Package-relative path -> SHA-256, as written to security.json. */
  checksums: Record<string, string>;
  entries: number;
}

/**
 * The one pack pipeline: CLI pack, reactor save, sign and push all write archives here,
 * so checksums, entry order and security.json are produced in exactly one place.
 * Entries go in sorted path order, each read once and hashed as it is compressed;
 * security.json, derived from all of them, is the last entry.
 */
export class PackPipeline {
  constructor(
    private readonly writer: ArchiveWriter,
    private readonly hasher: Hasher,
  ) {}

  async write(files: readonly PackFile[], target: PackTarget, signatures?: DigitalSignatures): Promise<PackResult> {
    const ordered = sortByPath(files.filter((file) => file.path !== SECURITY_FILE), (file) => file.path);
    for (const file of ordered) {
      const reason = unsafePathReason(file.path);
      if (reason) throw new UnsafeEntryError(file.path, reason);
    }
    const clash = entryNamesProblem(ordered.map((file) => file.path));
    if (clash) throw new UnsafeEntryError(clash.name, clash.reason);
    // security.json is one more entry; files not read yet count by their size when it is known.
    const expected = { entries: ordered.length + 1, expandedSize: ordered.reduce((sum, file) => sum + (file.data instanceof Uint8Array ? file.data.byteLength : (file.size ?? 0)), 0) };
    const sink = await this.writer.create(target.directory, target.fileName, { overwrite: target.overwrite, ...(target.ownerOnly ? { ownerOnly: true } : {}), expected });
    try {
      // Defined, not assigned: a file named __proto__ would set the prototype and have no checksum.
      const checksums: Record<string, string> = {};
      const ahead = readAhead(ordered);
      for (const [index, file] of ordered.entries()) {
        const bytes = (await ahead(index)) ?? (file.data instanceof Uint8Array ? file.data : undefined);
        if (bytes) {
          await sink.add(file.path, bytes, { store: isIncompressible(file.path, bytes) });
          defineOwn(checksums, file.path, this.hasher.sha256(bytes));
        } else {
          const hash = this.hasher.createSha256();
          const { first, rest } = await peek((file.data as () => AsyncIterable<Uint8Array>)());
          await sink.add(file.path, tap(rest, (chunk) => hash.update(chunk)), { store: isIncompressible(file.path, first) });
          defineOwn(checksums, file.path, hash.digest());
        }
      }
      const covered = Object.fromEntries(Object.entries(checksums).filter(([path]) => isCoveredByChecksums(path)));
      await sink.add(SECURITY_FILE, toJsonBytes(securityDocument({ checksums: covered, ...(signatures ? { digitalSignatures: signatures } : {}) })), { store: false });
      const { path, size, sha256 } = await sink.commit();
      return { path, size, sha256, checksums: covered, entries: ordered.length + 1 };
    } catch (error) {
      await sink.abort();
      throw error;
    }
  }
}

/** The first chunk of a stream, and the whole stream again. */
async function peek(stream: AsyncIterable<Uint8Array>): Promise<{ first: Uint8Array; rest: AsyncIterable<Uint8Array> }> {
  const iterator = stream[Symbol.asyncIterator]();
  const head = await iterator.next();
  const first = head.done ? new Uint8Array() : head.value;
  async function* rest(): AsyncIterable<Uint8Array> {
    if (!head.done) yield head.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { first, rest: rest() };
}

/**
 * Starts reading the small files up to READ_AHEAD_FILES ahead of the current one, so
 * at most that many small files are held in memory at once.
 */
function readAhead(files: readonly PackFile[]): (index: number) => Promise<Uint8Array | undefined> {
  const started = new Map<number, Promise<Uint8Array>>();
  let next = 0;
  const small = (file: PackFile) => typeof file.data === 'function' && file.size !== undefined && file.size <= READ_AHEAD_MAX_SIZE;
  return async (index) => {
    for (; next < files.length && next <= index + READ_AHEAD_FILES; next++) {
      const file = files[next]!;
      if (small(file)) {
        const read = collectBytes((file.data as () => AsyncIterable<Uint8Array>)());
        read.catch(() => undefined);
        started.set(next, read);
      }
    }
    const read = started.get(index);
    started.delete(index);
    return read;
  };
}
