export interface ExternalReference {
  line: number;
  url: string;
}

const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>`)\]}]+/gi;
/** Identifiers that look like URLs but are never fetched: XML namespaces and DOCTYPE identifiers. */
const NOT_A_REFERENCE = /(?:xmlns(?::[\w.-]+)?\s*=\s*["']|<!DOCTYPE[^>]*)$/i;

/** Finds http(s) URLs in a content file: a package must not depend on other hosts. */
export function findExternalReferences(text: string): ExternalReference[] {
  const found: ExternalReference[] = [];
  let line = 1;
  let scanned = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    const start = match.index;
    for (let i = scanned; i < start; i++) if (text.charCodeAt(i) === 10) line++;
    scanned = start;
    const before = text.slice(Math.max(0, start - 200), start);
    if (NOT_A_REFERENCE.test(before)) continue;
    found.push({ line, url: match[0] });
  }
  return found;
}
