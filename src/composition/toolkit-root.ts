import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The toolkit's own folder: where its package.json is, above this file whether bundled (dist/) or not (src/). */
function toolkitRoot(): { url: URL; version: string } | undefined {
  for (let url = new URL('.', import.meta.url); url.pathname !== '/'; url = new URL('..', url)) {
    try {
      const manifest = JSON.parse(readFileSync(new URL('package.json', url), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'cap-toolkit' && manifest.version) return { url, version: manifest.version };
    } catch {
      // not here; look one folder up
    }
  }
  return undefined;
}

/** The toolkit's version, from its package.json. */
export function toolVersion(): string {
  return toolkitRoot()?.version ?? 'unknown';
}

/** The templates `pkg init` ships, beside package.json. */
export function templatesDirectory(): string {
  const root = toolkitRoot();
  return root ? fileURLToPath(new URL('templates/', root.url)) : fileURLToPath(new URL('../templates/', import.meta.url));
}
