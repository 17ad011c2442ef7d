/**
 * The external URLs a `<script type="speculationrules">` names: a browser prefetches or
 * prerenders each URL of a list rule's `urls` as the page loads, and every link a document
 * rule's `href_matches` pattern matches (inside `where`, under any `and`, `or` and `not`).
 * A pattern with a host of its own (`https://other.example/*`, `*://other.example/*`,
 * `{"hostname": "other.example"}`) sends the browser elsewhere. Not JSON, or not rules:
 * a browser ignores it.
 */
export function speculationRuleUrls(text: string, isExternal: (url: string) => boolean): string[] {
  let rules: unknown;
  try {
    rules = JSON.parse(text);
  } catch {
    return [];
  }
  const urls: string[] = [];
  // Breadth first by hand rather than by recursion: the JSON may nest deeper than the stack.
  const pending: unknown[] = [rules];
  for (let next = 0; next < pending.length; next++) {
    const value = pending[next];
    if (typeof value !== 'object' || value === null) continue;
    // One by one, not spread: a list of 200,000 spread into push overflows the stack.
    if (Array.isArray(value)) for (const inner of value as unknown[]) pending.push(inner);
    else
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'urls' && Array.isArray(inner)) {
          for (const url of inner as unknown[]) if (typeof url === 'string' && isExternal(url)) urls.push(url);
        } else if (key === 'href_matches') for (const pattern of [inner].flat() as unknown[]) urls.push(...patternUrls(pattern, isExternal));
        else pending.push(inner);
      }
  }
  return urls;
}

/** A pattern's external URLs: a string as written, a URLPattern dictionary by its base URL or its host. */
function patternUrls(pattern: unknown, isExternal: (url: string) => boolean): string[] {
  if (typeof pattern === 'string') return isExternal(pattern.replace(ANY_SCHEME, '')) ? [pattern] : [];
  if (typeof pattern !== 'object' || pattern === null) return [];
  const { baseURL, hostname } = pattern as { baseURL?: unknown; hostname?: unknown };
  return [...(typeof baseURL === 'string' && isExternal(baseURL) ? [baseURL] : []), ...(typeof hostname === 'string' ? [`//${hostname}`] : [])];
}

/** A scheme that is itself a pattern (`*`, `http{s}?`): it matches http(s) links, so read as scheme-relative. */
const ANY_SCHEME = /^[^/:]*[*{}?()][^/:]*:(?=\/\/)/;
