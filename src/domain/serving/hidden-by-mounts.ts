import { API_PAGE_PATH, DATA_API_PREFIX, OPENAPI_PATH } from '../package/routes.js';
import { GRAPHQL_PATH, reactorOwnerAtRoot } from './reactor-paths.js';

/** A mounted package, as far as which paths below its prefix it answers itself. */
export interface MountedAt {
  prefix: string;
  /** How the warning names it: its source and package name. */
  label: string;
  datasets: boolean;
}

/**
 * A request goes to the mount with the longest matching prefix: a package mounted at
 * `/api/` (the path a package named `api` gets) takes every `/api/...` request, and the root
 * package's data API, its description and page then answer 404, without a word. Said at
 * start, as a route the reactor answers itself is; so is a mount whose own path without
 * its slash the reactor answers (`/healthz` for a package named healthz).
 */
export function hiddenByMountsWarnings(mounts: readonly MountedAt[]): string[] {
  const warnings: string[] = [];
  for (const outer of mounts) {
    if (!outer.datasets) continue;
    for (const inner of mounts) {
      if (inner === outer || !inner.prefix.startsWith(outer.prefix)) continue;
      // The inner mount's prefix as a path below the outer one: `/api/` below `/`, `/graphql/` below `/docs/`.
      const below = inner.prefix.slice(outer.prefix.length - 1);
      const hidden = [[DATA_API_PREFIX, 'data API'], [OPENAPI_PATH, 'OpenAPI description'], [API_PAGE_PATH, 'API page'], [GRAPHQL_PATH, 'GraphQL']].filter(([path]) => `${path!}/`.startsWith(below));
      if (hidden.length === 0) continue;
      const what = hidden.map(([path, name]) => `${name} (${outer.prefix.slice(0, -1)}${path})`).join(', ');
      warnings.push(`the mount at ${inner.prefix} (${inner.label}) takes every request below it: the ${what} of ${outer.label} at ${outer.prefix} answer 404; mount one of them at another path (--mount PATH=SOURCE)`);
    }
  }
  for (const mount of mounts) {
    // `/healthz` for a package named healthz: the probe answers it, not the mount's redirect to `/healthz/`.
    const root = mount.prefix.slice(0, -1);
    const whole = reactorOwnerAtRoot(mount.prefix);
    const owner = reactorOwnerAtRoot(root);
    if (whole) warnings.push(`the reactor answers every path below ${mount.prefix} itself (${whole}): the mount there (${mount.label}) is never reached; mount it at another path (--mount PATH=SOURCE)`);
    else if (owner) warnings.push(`the reactor answers ${root} itself (${owner}): the mount at ${mount.prefix} (${mount.label}) is reached only with its trailing slash, ${root} does not redirect there; mount it at another path (--mount PATH=SOURCE)`);
  }
  return warnings;
}
