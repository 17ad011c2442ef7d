import { isAscii, nfc } from './package-paths.js';

/**
 * A package's own spelling of each non-ASCII path (a request path it answers, a file it
 * holds), by NFC form. A name
 * made on macOS is decomposed (NFD: `e` + U+0301), while the page that links to it
 * was most likely typed composed (NFC), and a browser sends the link's characters as
 * they are written, never normalized. A package holds one spelling of each name
 * (entryNamesProblem), so the NFC form of a request names at most one of its paths.
 */
export class Spellings {
  private readonly byNormal = new Map<string, string>();

  /** `paths`: request paths (`/docs/café.html`) or package paths; each folder on the way is indexed too, with and without its slash. */
  constructor(paths: Iterable<string>) {
    for (const path of paths) {
      if (isAscii(path)) continue;
      this.add(path);
      for (let slash = path.indexOf('/', 1); slash > 0; slash = path.indexOf('/', slash + 1)) {
        this.add(path.slice(0, slash));
        this.add(path.slice(0, slash + 1));
      }
    }
  }

  /** The indexed path that is `path` once Unicode-normalized, if any. */
  of(path: string): string | undefined {
    return isAscii(path) ? undefined : this.byNormal.get(nfc(path));
  }

  private add(path: string): void {
    const normal = nfc(path);
    if (!this.byNormal.has(normal)) this.byNormal.set(normal, path);
  }
}
