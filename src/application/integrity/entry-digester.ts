import { UnscannableContentError } from '../../domain/errors.js';
import type { ContentReferenceScanner } from '../ports/content-references.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageSource } from '../ports/package-source.js';
import { digestEntries, type ChunkObserver } from './digest-entries.js';

export interface FoundReference {
  path: string;
  line: number;
  url: string;
}

export interface EntryDigests {
  /** Path -> SHA-256 hex of every requested entry. */
  digests: Map<string, string>;
  /** External http(s) references found in the scanned entries. */
  references: FoundReference[];
  /** Scanned entries the scanner could not read to their end, each with why. */
  unscannable: Array<{ path: string; reason: string }>;
}

/**
 * Hashes package entries and scans some of them for external references, reading
 * each entry once. (A worker thread splitting the entries was measured and gained
 * nothing: reads and inflating already keep both cores busy on the thread pool.)
 */
export class EntryDigester {
  constructor(
    private readonly hasher: Hasher,
    private readonly references: ContentReferenceScanner,
  ) {}

  /** `scanned`: the entries to scan, each with the media type it is served as. */
  async digest(source: PackageSource, paths: readonly string[], scanned: ReadonlyMap<string, string>): Promise<EntryDigests> {
    const scans: Array<Promise<FoundReference[]>> = [];
    const unscannable: EntryDigests['unscannable'] = [];
    const scanner = (path: string): ChunkObserver | undefined => {
      if (!scanned.has(path)) return undefined;
      let decoder: InstanceType<typeof TextDecoder> | undefined;
      let text = '';
      return {
        // A byte order mark decides the encoding before any header does, in a browser: a UTF-16 page read as UTF-8 held no URL.
        update: (chunk) => {
          if (chunk.length > 0) text += (decoder ??= new TextDecoder(utf16ByBom(chunk) ?? 'utf-8')).decode(chunk, { stream: true });
        },
        end: () => {
          text += decoder?.decode() ?? '';
          scans.push(
            this.references.scan(path, text, scanned.get(path)).then(
              (found) => found.map(({ line, url }) => ({ path, line, url })),
              (error: unknown) => {
                if (!(error instanceof UnscannableContentError)) throw error;
                unscannable.push({ path, reason: error.message });
                return [];
              },
            ),
          );
        },
      };
    };
    const digests = await digestEntries(source, this.hasher, paths, scanner);
    const references = (await Promise.all(scans)).flat();
    return { digests, references, unscannable };
  }
}

/** The UTF-16 encoding a byte order mark names (the UTF-8 one, TextDecoder drops by itself). */
function utf16ByBom(head: Uint8Array): string | undefined {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}
