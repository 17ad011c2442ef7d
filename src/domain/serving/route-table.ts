import { CONTENT_DIR } from '../package/package-paths.js';
import { DATA_API_PREFIX, dependencyReference, type AccessControl, type Route, type Routes } from '../package/routes.js';

export type RouteTarget =
  /** A file of the layered content tree, by its path below content/. */
  | { kind: 'content'; contentPath: string; route?: Route }
  /** A package file outside content/, served as it is. */
  | { kind: 'file'; packagePath: string; route: Route }
  /** A file of a dependency's exported content: a resource `<dependency guid>/content/<file>`. */
  | { kind: 'dependency'; guid: string; contentPath: string; route: Route }
  | { kind: 'dataset'; dataset: string; route: Route }
  /** A route to code another implementation runs: it answers 501. */
  | { kind: 'handler'; route: Route }
  /** A declared path that a `remap` moved elsewhere: it answers 404. */
  | { kind: 'moved'; route: Route };

/**
 * Routes resolved once at load into a map for O(1) lookup. routes.json adds aliases
 * (`/`, extensionless HTML), dataset routes and attributes; beyond them, the URL space
 * mirrors the visible content, which callers check after the map.
 */
export class RouteTable {
  private readonly byPath = new Map<string, RouteTarget>();
  /** The first rule a route sets on each file below content/ it names: the file keeps it on every path that reaches it. */
  private readonly fileRules = new Map<string, AccessControl>();
  /**
   * Each dataset's rule, which its whole data API and GraphQL keep: that of its route at
   * `/api/v1/data/<id>`, else the first another route to it sets. Never the last: a second
   * route to the dataset with a laxer rule would otherwise open what the first one closed.
   */
  private readonly datasetRuleOf = new Map<string, AccessControl>();

  /** Whether any route restricts access: a mount without one need not look through them all. */
  readonly restricted: boolean;

  /** `dependencies`: the GUIDs (to ranges) a resource may name as `<guid>/content/<file>`. */
  constructor(routes: Routes, dependencies: Readonly<Record<string, string>> = {}) {
    let restricted = false;
    for (const route of routes.routes) {
      if (route.accessControl !== undefined) restricted = true;
      const served = route.remap ?? route.path;
      if (route.remap !== undefined && route.remap !== route.path && !this.byPath.has(route.path)) this.byPath.set(route.path, { kind: 'moved', route });
      const earlier = this.byPath.get(served);
      if (earlier !== undefined && earlier.kind !== 'moved') continue;
      if (route.dataset !== undefined) this.byPath.set(served, { kind: 'dataset', dataset: route.dataset, route });
      else if (route.handler !== undefined) this.byPath.set(served, { kind: 'handler', route });
      else if (route.resource !== undefined) {
        const content = route.resource.startsWith(CONTENT_DIR);
        const dependency = content ? undefined : dependencyReference(route.resource, dependencies);
        this.byPath.set(
          served,
          content
            ? { kind: 'content', contentPath: route.resource.slice(CONTENT_DIR.length), route }
            : dependency
              ? { kind: 'dependency', guid: dependency.guid, contentPath: dependency.path.slice(CONTENT_DIR.length), route }
              : { kind: 'file', packagePath: route.resource, route },
        );
      }
    }
    this.restricted = restricted;
    if (restricted)
      for (const [path, target] of this.byPath) {
        const rule = target.route?.accessControl;
        if (rule === undefined) continue;
        if ((target.kind === 'content' || target.kind === 'dependency') && !this.fileRules.has(target.contentPath)) this.fileRules.set(target.contentPath, rule);
        if (target.kind === 'dataset' && (path === DATA_API_PREFIX + target.dataset || !this.datasetRuleOf.has(target.dataset))) this.datasetRuleOf.set(target.dataset, rule);
      }
  }

  get datasetRules(): ReadonlyMap<string, AccessControl> {
    return this.datasetRuleOf;
  }

  /** The declared target of a path, if routes.json names one. */
  lookup(path: string): RouteTarget | undefined {
    return this.byPath.get(path);
  }

  /**
   * The access rule of a path: its route's own, else that of the file it reaches when a
   * route protects that file. Otherwise `/admin` would refuse what `/admin-page.html`
   * (the file's own path, or another route without a rule) hands out. A route to a
   * dataset has the dataset's rule, whatever its own says: it serves the same data as the
   * dataset's API, and a laxer rule of its own would hand out what that API refuses.
   */
  ruleOf(path: string): AccessControl | undefined {
    const target = this.byPath.get(path);
    if (target?.kind === 'dataset') return this.datasetRuleOf.get(target.dataset);
    if (target?.route?.accessControl || this.fileRules.size === 0) return target?.route?.accessControl;
    if (target === undefined) return this.fileRules.get(RouteTable.mirrored(path));
    return target.kind === 'content' || target.kind === 'dependency' ? this.fileRules.get(target.contentPath) : undefined;
  }

  /** The content path a request path mirrors when no route names it: `/docs/` -> `docs/index.html`. */
  static mirrored(path: string): string {
    const below = path.slice(1);
    return below === '' || below.endsWith('/') ? `${below}index.html` : below;
  }

  declared(): IterableIterator<[string, RouteTarget]> {
    return this.byPath.entries();
  }

  /** The declared targets without their paths: looking through 20,000 routes at load copies none of them. */
  targets(): IterableIterator<RouteTarget> {
    return this.byPath.values();
  }
}
