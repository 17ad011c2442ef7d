import type { ContentReference, ContentReferenceScanner } from '../../application/ports/content-references.js';

/**
 * The parsers (HTML, CSS, module lexer) load on the first scan: only validate needs them,
 * and a reactor or a pack that loaded them at start would pay for them for nothing.
 */
export class LazyReferenceScanner implements ContentReferenceScanner {
  private scanner: Promise<ContentReferenceScanner> | undefined;

  async scan(path: string, text: string, type?: string): Promise<ContentReference[]> {
    this.scanner ??= import('./parsed-reference-scanner.js').then(({ ParsedReferenceScanner }) => new ParsedReferenceScanner());
    return (await this.scanner).scan(path, text, type);
  }
}
