import { readFileSync } from 'node:fs';

/** The toolkit's version, from the package.json above this file (bundled or not). */
export function toolVersion(): string {
  for (let url = new URL('.', import.meta.url); url.pathname !== '/'; url = new URL('..', url)) {
    try {
      const manifest = JSON.parse(readFileSync(new URL('package.json', url), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'cap-toolkit' && manifest.version) return manifest.version;
    } catch {
      // not here; look one folder up
    }
  }
  return 'unknown';
}
