import { sortPaths } from './package-paths.js';

/** What `pkg package diff` compares of one package: read by the use case, compared here. */
export interface PackageSnapshot {
  name: string;
  version: string;
  guid?: string;
  /** Package path -> SHA-256 of the bytes as stored (security.json and signature.sig aside). */
  files: ReadonlyMap<string, string>;
  /** Route path -> what answers it (`resource content/x.html`, `dataset animals`, ...). */
  routes: ReadonlyMap<string, string>;
  /** Dataset id -> item id -> the item's canonical JSON; absent for an encrypted package, whose datasets cannot be read. */
  datasets?: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** `unsigned`, `RSA-SHA256` or `OpenPGP`. */
  signature: string;
  encrypted: boolean;
}

export interface Changes {
  added: string[];
  removed: string[];
  changed: string[];
}

export interface PackageDiff {
  equal: boolean;
  identity: { from: Identity; to: Identity };
  files: Changes;
  routes: Changes;
  datasets: Changes & { items: Record<string, Changes> };
  signature: { from: string; to: string };
  encryption: { from: boolean; to: boolean };
}

interface Identity {
  name: string;
  version: string;
  guid?: string;
}

export function diffPackages(from: PackageSnapshot, to: PackageSnapshot): PackageDiff {
  const items: Record<string, Changes> = {};
  const datasets = compareMaps(from.datasets ?? new Map(), to.datasets ?? new Map(), (a, b) => {
    const changes = compareMaps(a, b, (x, y) => x === y);
    return isEmpty(changes);
  });
  for (const id of datasets.added) items[id] = { added: sortPaths([...to.datasets!.get(id)!.keys()]), removed: [], changed: [] };
  for (const id of datasets.removed) items[id] = { added: [], removed: sortPaths([...from.datasets!.get(id)!.keys()]), changed: [] };
  for (const id of datasets.changed) items[id] = compareMaps(from.datasets!.get(id)!, to.datasets!.get(id)!, (x, y) => x === y);
  const diff: PackageDiff = {
    equal: false,
    identity: { from: identityOf(from), to: identityOf(to) },
    files: compareMaps(from.files, to.files, (a, b) => a === b),
    routes: compareMaps(from.routes, to.routes, (a, b) => a === b),
    datasets: { ...datasets, items },
    signature: { from: from.signature, to: to.signature },
    encryption: { from: from.encrypted, to: to.encrypted },
  };
  diff.equal =
    JSON.stringify(diff.identity.from) === JSON.stringify(diff.identity.to) &&
    isEmpty(diff.files) &&
    isEmpty(diff.routes) &&
    isEmpty(diff.datasets) &&
    from.signature === to.signature &&
    from.encrypted === to.encrypted;
  return diff;
}

function identityOf(snapshot: PackageSnapshot): Identity {
  return { name: snapshot.name, version: snapshot.version, ...(snapshot.guid !== undefined ? { guid: snapshot.guid } : {}) };
}

function compareMaps<T>(from: ReadonlyMap<string, T>, to: ReadonlyMap<string, T>, same: (a: T, b: T) => boolean): Changes {
  const changes: Changes = { added: [], removed: [], changed: [] };
  for (const [key, value] of from) {
    if (!to.has(key)) changes.removed.push(key);
    else if (!same(value, to.get(key)!)) changes.changed.push(key);
  }
  for (const key of to.keys()) if (!from.has(key)) changes.added.push(key);
  return { added: sortPaths(changes.added), removed: sortPaths(changes.removed), changed: sortPaths(changes.changed) };
}

function isEmpty(changes: Changes): boolean {
  return changes.added.length + changes.removed.length + changes.changed.length === 0;
}
