/**
 * What makes a URL another host's, and where the URLs lie in the values that name them:
 * shared by the scan of content files and the check of the headers routes.json sends.
 */

/** A URL that leads off the package's own site: one a browser fetches from, or sends the reader to, another host. */
export function isExternal(url: string): boolean {
  // As a browser's URL parser reads it: tabs and line breaks dropped, a backslash a slash (`/\t/host`, `\\host` lead off the site too).
  // `https:host/x` with no slashes names a host too when the page's own scheme is the other one (the URL standard's
  // "special authority ignore slashes" state), and a package is served over either.
  return /^[\0- ]*(?:https?:|\/\/)/i.test(url.replace(/[\t\n\r]/g, '').replace(/\\/g, '/'));
}

/**
 * The URL of a `<meta http-equiv="refresh">` content or a `Refresh` header (one grammar), as
 * the HTML standard reads it: a time, then `;` or `,`, then the URL with or without `url=`
 * before it, quoted or not.
 */
export function refreshUrl(content: string): string | undefined {
  const time = /^[\t\n\f\r ]*[0-9.]+(?=[;,\t\n\f\r ]|$)[\t\n\f\r ]*[;,]?[\t\n\f\r ]*/.exec(content);
  if (!time) return undefined;
  let rest = content.slice(time[0].length);
  const named = /^url[\t\n\f\r ]*=[\t\n\f\r ]*/i.exec(rest);
  // `u` that does not start `url=` starts the URL itself, quotes and all.
  if (!named && /^u/i.test(rest)) return rest;
  if (named) rest = rest.slice(named[0].length);
  const quote = rest[0] === '"' || rest[0] === "'" ? rest[0] : undefined;
  if (!quote) return rest;
  const end = rest.indexOf(quote, 1);
  return rest.slice(1, end < 0 ? undefined : end);
}

/**
 * The URLs of a srcset, as HTML's parser reads it: a URL runs to whitespace (a comma inside
 * it is part of it, trailing commas are not), and its descriptors run to a comma outside
 * parentheses. Splitting at every comma would make `/a,//b` two URLs, the second on another host.
 */
export function srcsetUrls(srcset: string): string[] {
  const urls: string[] = [];
  const space = /[\t\n\f\r ]/;
  let at = 0;
  while (at < srcset.length) {
    while (at < srcset.length && (space.test(srcset[at]!) || srcset[at] === ',')) at++;
    const start = at;
    while (at < srcset.length && !space.test(srcset[at]!)) at++;
    let url = srcset.slice(start, at);
    if (url === '') break;
    if (url.endsWith(',')) url = url.replace(/,+$/, '');
    else
      for (let depth = 0; at < srcset.length; at++) {
        const char = srcset[at]!;
        if (char === '(') depth++;
        else if (char === ')') depth = Math.max(0, depth - 1);
        else if (char === ',' && depth === 0) break;
      }
    urls.push(url);
  }
  return urls;
}
