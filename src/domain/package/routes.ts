import { ConfigValidationError } from '../errors.js';
import { isRecord } from './documents.js';
import { CONTENT_DIR, ROUTES_FILE, isContentPath, sortByPath, sortPaths, urlPathOfContent } from './package-paths.js';
import { HTTP_FIELD_VALUE } from './field-rules.js';
import { REACTOR_COOKIES } from '../auth/cookie-names.js';

export const DATA_API_PREFIX = '/api/v1/data/';
/** Where a mount describes its data API (OpenAPI 3.1), and the page that shows it to a browser. */
export const OPENAPI_PATH = '/api/v1/openapi.json';
export const API_PAGE_PATH = '/api/v1/';

export interface AccessControl {
  roles?: string[];
  /** A missing value means true. */
  authenticationRequired?: boolean;
}

export interface ResponseRewrite {
  body?: string;
  headers?: Record<string, string>;
}

export interface Route {
  path: string;
  resource?: string;
  dataset?: string;
  /**
   * Code another implementation runs for the route (`handlers/score.js`): read, listed and
   * kept, but not run here; such a route answers 501 HANDLER_NOT_SUPPORTED.
   */
  handler?: string;
  /** The method a handler route answers (GET when absent). */
  method?: string;
  accessControl?: AccessControl;
  remap?: string;
  responseRewrite?: ResponseRewrite;
  responseHeaders?: Record<string, string>;
  requestHeaders?: Record<string, string>;
  headers?: Record<string, string>;
}

export interface Routes {
  /** Package-relative path of the index HTML file. */
  index?: string;
  routes: Route[];
}

const HEADER_MAPS = ['responseHeaders', 'requestHeaders', 'headers'] as const;

/**
 * Reads routes.json in any accepted form into the canonical one: the `routes` array,
 * routes keyed by path (legacy; `null` means none), and legacy `target` objects.
 */
export function normalizeRoutes(raw: unknown): Routes {
  if (!isRecord(raw)) throw new ConfigValidationError(ROUTES_FILE, ['must be a JSON object']);
  const issues: string[] = [];
  const routes: Route[] = [];
  const list = raw.routes;
  if (Array.isArray(list)) {
    list.forEach((item, index) => {
      const route = plainRoute(item) ?? canonicalRoute(item, `routes[${index}]`, undefined, issues);
      if (route) routes.push(route);
    });
  } else if (isRecord(list)) {
    for (const [path, item] of Object.entries(list)) {
      const route = canonicalRoute(item, `routes[${JSON.stringify(path)}]`, path, issues);
      if (route) routes.push(route);
    }
  } else if (list !== undefined && list !== null) {
    issues.push('routes: must be an array of routes or an object keyed by path');
  }
  const document: Routes = { routes };
  const index = indexPath(raw.index, issues);
  if (index !== undefined) document.index = index;
  if (issues.length > 0) throw new ConfigValidationError(ROUTES_FILE, issues);
  return document;
}

function indexPath(value: unknown, issues: string[]): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (isRecord(value) && typeof (value.file ?? value.resource) === 'string') return (value.file ?? value.resource) as string;
  issues.push('index: must be the package-relative path of an HTML file');
  return undefined;
}

/**
 * A route that is only a path and a file, already canonical: how a packer writes nearly
 * every one. Taken as it is, without the checks, and the names for their messages, that
 * a 20,000-route document otherwise paid at every start; anything else goes to canonicalRoute.
 */
function plainRoute(raw: unknown): Route | undefined {
  if (!isRecord(raw) || typeof raw.path !== 'string' || !raw.path.startsWith('/') || typeof raw.resource !== 'string') return undefined;
  if (raw.target !== undefined || raw.dataset !== undefined || raw.handler !== undefined || raw.method !== undefined || raw.accessControl !== undefined || raw.remap !== undefined) return undefined;
  if (raw.responseRewrite !== undefined || raw.responseHeaders !== undefined || raw.requestHeaders !== undefined || raw.headers !== undefined) return undefined;
  return { path: raw.path, resource: raw.resource };
}

function canonicalRoute(raw: unknown, where: string, keyPath: string | undefined, issues: string[]): Route | undefined {
  if (!isRecord(raw)) {
    issues.push(`${where}: must be an object`);
    return undefined;
  }
  const before = issues.length;
  const path = raw.path ?? keyPath;
  if (keyPath !== undefined && raw.path !== undefined && raw.path !== keyPath) issues.push(`${where}: inner path ${JSON.stringify(raw.path)} differs from its key`);
  if (typeof path !== 'string' || !path.startsWith('/')) issues.push(`${where}: "path" must be a string starting with "/"`);
  const target = isRecord(raw.target) ? raw.target : {};
  const resource = raw.resource ?? target.file ?? target.resource;
  const dataset = raw.dataset ?? target.dataset;
  const handler = raw.handler ?? target.handler;
  if (resource !== undefined && typeof resource !== 'string') issues.push(`${where}: "resource" must be a string`);
  if (dataset !== undefined && typeof dataset !== 'string') issues.push(`${where}: "dataset" must be a string`);
  if (handler !== undefined && typeof handler !== 'string') issues.push(`${where}: "handler" must be a string`);
  if ([resource, dataset, handler].filter((value) => value !== undefined).length !== 1) issues.push(`${where}: needs exactly one of "resource", "dataset" or "handler"`);
  if (raw.method !== undefined && (typeof raw.method !== 'string' || !/^[A-Za-z]+$/.test(raw.method))) issues.push(`${where}: "method" must be an HTTP method`);
  const route: Route = { path: path as string };
  if (typeof resource === 'string') route.resource = resource;
  if (typeof dataset === 'string') route.dataset = dataset;
  if (typeof handler === 'string') route.handler = handler;
  if (typeof raw.method === 'string' && /^[A-Za-z]+$/.test(raw.method)) route.method = raw.method.toUpperCase();
  if (raw.accessControl !== undefined) {
    const access = raw.accessControl;
    if (!isRecord(access)) issues.push(`${where}.accessControl: must be an object`);
    else {
      const control: AccessControl = {};
      if (access.roles !== undefined) {
        if (!Array.isArray(access.roles) || !access.roles.every((r) => typeof r === 'string')) issues.push(`${where}.accessControl.roles: must be an array of strings`);
        else control.roles = access.roles as string[];
      }
      if (access.authenticationRequired !== undefined) {
        if (typeof access.authenticationRequired !== 'boolean') issues.push(`${where}.accessControl.authenticationRequired: must be a boolean`);
        else control.authenticationRequired = access.authenticationRequired;
      }
      route.accessControl = control;
    }
  }
  if (raw.remap !== undefined) {
    if (typeof raw.remap !== 'string' || !raw.remap.startsWith('/')) issues.push(`${where}.remap: must be a path starting with "/"`);
    else route.remap = raw.remap;
  }
  if (raw.responseRewrite !== undefined) {
    const rewrite = raw.responseRewrite;
    if (!isRecord(rewrite) || (rewrite.body !== undefined && typeof rewrite.body !== 'string')) issues.push(`${where}.responseRewrite: must be {body?: string, headers?: {name: value}}`);
    else {
      const value: ResponseRewrite = {};
      if (typeof rewrite.body === 'string') value.body = rewrite.body;
      if (rewrite.headers !== undefined) {
        const headers = headerMap(rewrite.headers, `${where}.responseRewrite.headers`, issues, true);
        if (headers) value.headers = headers;
      }
      route.responseRewrite = value;
    }
  }
  for (const field of HEADER_MAPS) {
    if (raw[field] === undefined) continue;
    const headers = headerMap(raw[field], `${where}.${field}`, issues, field !== 'requestHeaders');
    if (headers) route[field] = headers;
  }
  return issues.length > before ? undefined : route;
}

/**
 * Headers that frame a response or belong to one connection, and its coding: the reactor
 * sets them for the bytes it sends. A package that set `Content-Length: 5` beside the real
 * one, or `Transfer-Encoding: chunked` beside a length, would have proxies in front read
 * the answer differently from clients (response smuggling).
 */
const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'proxy-connection', 'content-encoding', 'content-range']);

/**
 * Headers the reactor gives each answer of its own: `Date`, the time it is sent (a fixed
 * one took the place of node's and made caches misjudge every answer's age), and
 * `X-Request-Id`, the id its access log gives the request (a route's replaced it, so the
 * answer no longer led to its log line).
 */
const PER_ANSWER_HEADERS = new Set(['date', 'x-request-id']);

const REACTOR_HEADERS: ReadonlyArray<{ names: ReadonlySet<string>; why: string }> = [
  { names: FRAMING_HEADERS, why: 'for the bytes it sends' },
  { names: PER_ANSWER_HEADERS, why: 'for each answer it sends' },
];

function headerMap(value: unknown, where: string, issues: string[], sent: boolean): Record<string, string> | undefined {
  // Nothing node would refuse at the route's first answer.
  if (!isRecord(value) || !Object.entries(value).every(([name, v]) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) && typeof v === 'string' && HTTP_FIELD_VALUE.test(v))) {
    issues.push(`${where}: must be an object of header name to string value (tab, space, visible ASCII or Latin-1 characters)`);
    return undefined;
  }
  for (const { names, why } of sent ? REACTOR_HEADERS : []) {
    const reserved = Object.keys(value).filter((name) => names.has(name.toLowerCase()));
    if (reserved.length > 0) {
      issues.push(`${where}: ${reserved.join(', ')} ${reserved.length === 1 ? 'is' : 'are'} the reactor's to set ${why}, not a route's`);
      return undefined;
    }
  }
  // One package setting them would sign visitors out of every mount, or out of a login under way.
  const cookie = sent ? Object.entries(value as Record<string, string>).map(([name, v]) => (name.toLowerCase() === 'set-cookie' ? v.split('=', 1)[0]!.trim() : '')).find((named) => REACTOR_COOKIES.has(named)) : undefined;
  if (cookie) {
    issues.push(`${where}: Set-Cookie of ${cookie} is the reactor's own cookie, not a route's`);
    return undefined;
  }
  return { ...(value as Record<string, string>) };
}

/** The value a route sends for a header, as its answers carry it: `responseRewrite.headers` over `responseHeaders` over `headers`. */
export function routeHeader(route: Route, name: string): string | undefined {
  const lower = name.toLowerCase();
  let value: string | undefined;
  for (const headers of [route.headers, route.responseHeaders, route.responseRewrite?.headers])
    for (const [key, v] of Object.entries(headers ?? {})) if (key.toLowerCase() === lower) value = v;
  return value;
}

export interface GeneratedRoutes {
  routes: Routes;
  /** Paths that two files claimed: the first one won. */
  collisions: string[];
}

const HTML = /\.html?$/i;

export function isHtml(path: string): boolean {
  return HTML.test(path);
}

/**
 * Every file below content/ gets `/<path below content/>`, an HTML file also gets the
 * same path without its extension, content/index.html also gets `/`, and every dataset
 * gets `/api/v1/data/<id>`. Sorted by path; on a collision the first wins.
 *
 * With `aliasesOnly`, the plain `/<path>` routes are left out (a server mirrors the
 * content anyway) and only what they do not give is kept: same outcome, a tenth of
 * the routes, no sorting.
 */
export function generateRoutes(files: Iterable<string>, datasetIds: Iterable<string>, options: { aliasesOnly?: boolean } = {}): GeneratedRoutes {
  const byPath = new Map<string, Route>();
  const plain = new Set<string>();
  const collisions: string[] = [];
  const claim = (route: Route) => {
    if (byPath.has(route.path) || plain.has(route.path)) collisions.push(route.path);
    else byPath.set(route.path, route);
  };
  const contentFiles = [...files].filter(isContentPath);
  if (!options.aliasesOnly) sortByPath(contentFiles, (file) => file);
  const index = `${CONTENT_DIR}index.html`;
  const hasIndex = contentFiles.includes(index);
  for (const file of contentFiles) {
    const path = urlPathOfContent(file);
    if (options.aliasesOnly) plain.add(path);
    else claim({ path, resource: file });
  }
  const html = contentFiles.filter((file) => HTML.test(file));
  if (options.aliasesOnly) sortByPath(html, (file) => file);
  for (const file of html) claim({ path: urlPathOfContent(file).replace(HTML, ''), resource: file });
  if (hasIndex) claim({ path: '/', resource: index });
  for (const id of sortPaths(datasetIds)) claim({ path: DATA_API_PREFIX + id, dataset: id });
  const routes: Routes = { routes: options.aliasesOnly ? [...byPath.values()] : sortByPath([...byPath.values()], (route) => route.path) };
  if (hasIndex) routes.index = index;
  return { routes, collisions };
}

/** The canonical document, as writers emit it. */
export function routesDocument(routes: Routes): Record<string, unknown> {
  return routes.index !== undefined ? { index: routes.index, routes: routes.routes } : { routes: routes.routes };
}

/** A resource that addresses a dependency's content: `<dependency guid>/content/<file>`. */
export function dependencyReference(resource: string, dependencies: Record<string, string>): { guid: string; path: string } | undefined {
  for (const guid of Object.keys(dependencies)) {
    if (resource.startsWith(`${guid}/content/`)) return { guid, path: resource.slice(guid.length + 1) };
  }
  return undefined;
}
