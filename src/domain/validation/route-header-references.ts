import { ROUTES_FILE } from '../package/package-paths.js';
import { routeHeader, type Routes } from '../package/routes.js';
import { isExternal, refreshUrl, srcsetUrls } from './external-urls.js';

/** A header a route sends that makes the browser load from, or go to, another host. */
export interface RouteHeaderReference {
  route: string;
  header: string;
  url: string;
}

/**
 * Headers whose URLs a browser acts on when the answer arrives: `Link` preloads, prefetches,
 * applies stylesheets and connects ahead (the header form of `<link>`), `Refresh` navigates
 * (the header form of `<meta http-equiv="refresh">`), `Speculation-Rules` fetches rule sets.
 * A report-only URL (`Content-Security-Policy`'s `report-uri`, `Report-To`) is not one.
 */
const URLS_OF: ReadonlyArray<[string, (value: string) => string[]]> = [
  ['Link', linkUrls],
  ['Refresh', (value) => [refreshUrl(value) ?? ''].filter((url) => url !== '')],
  ['Speculation-Rules', quotedStrings],
];

/**
 * The external URLs in the headers routes.json has routes send, as they are sent (one
 * value a name: `responseRewrite.headers` over `responseHeaders` over `headers`). Every
 * route is read, a dataset route's too: another reactor may send what this one leaves out.
 */
export function routeHeaderReferences(routes: Routes): RouteHeaderReference[] {
  const found: RouteHeaderReference[] = [];
  for (const route of routes.routes)
    for (const [header, urls] of URLS_OF) {
      const value = routeHeader(route, header);
      if (value === undefined) continue;
      for (const url of urls(value)) if (isExternal(url)) found.push({ route: route.path, header, url: url.trim() });
    }
  return found;
}

/** The content check's line for one: named by the file and route, as a content file's are by file and line. */
export function describeRouteHeaderReference({ route, header, url }: RouteHeaderReference): string {
  return `${ROUTES_FILE}: route ${route}: ${header} header: external reference ${url}`;
}

/**
 * The URLs of a `Link` header (RFC 8288): each link's `<target>`, and the candidates of an
 * `imagesrcset` parameter, which a preload fetches as `<link imagesrcset>` does. Links are
 * split at commas outside quotes and brackets: a URL or a quoted title may hold one.
 */
function linkUrls(value: string): string[] {
  const urls: string[] = [];
  let at = 0;
  while (at < value.length) {
    const open = value.indexOf('<', at);
    if (open < 0) break;
    const close = value.indexOf('>', open);
    if (close < 0) break;
    urls.push(value.slice(open + 1, close));
    at = close + 1;
    // The link's parameters, to the comma that ends it.
    let params = '';
    for (let quoted = false; at < value.length && (quoted || value[at] !== ','); at++) {
      if (value[at] === '"') quoted = !quoted;
      else if (value[at] === '\\' && quoted) params += value[at++];
      params += value[at] ?? '';
    }
    const srcset = /(?:^|;)\s*imagesrcset\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/i.exec(params);
    if (srcset) urls.push(...srcsetUrls((srcset[1] ?? srcset[2] ?? '').replace(/\\(.)/g, '$1')));
  }
  return urls;
}

/** The strings of a structured-field list (RFC 8941), as `Speculation-Rules` gives its rule set URLs. */
function quotedStrings(value: string): string[] {
  return [...value.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!.replace(/\\(.)/g, '$1'));
}
