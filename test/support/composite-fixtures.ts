import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ServedPackage } from '../../src/application/serving/served-package.js';

export const LIB_GUID = 'pkg://example.org/ui-lib';
export const SITE_GUID = 'pkg://example.org/site';

/** Writes a package directory: metadata from the arguments, then the given files. */
export function writePackage(directory: string, metadata: { name: string; version: string; guid: string; dependencies?: Record<string, string> }, files: Record<string, string>): string {
  const all: Record<string, string> = {
    'metadata.json': JSON.stringify({ description: `${metadata.name} ${metadata.version}`, uuid: '123e4567-e89b-42d3-a456-426614174000', ...metadata }),
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(directory, path)), { recursive: true });
    writeFileSync(join(directory, path), text);
  }
  return directory;
}

const manifest = (entries: Record<string, [string, 'exported' | 'private']>) =>
  JSON.stringify(Object.fromEntries(Object.entries(entries).map(([path, [type, visibility]]) => [path, { type, visibility }])));

/**
 * Three versions of a library and a site that depends on `^1.0.0` of it. 1.0.0 has a file
 * 1.4.0 lacks (old.txt), so which one was chosen shows; both have a private secret.txt;
 * the site overrides shared.txt and routes /lib.css to the library's style.css.
 */
export function writeCompositeFixtures(root: string): { lib: Record<string, string>; site: string } {
  const lib = {
    '1.0.0': writePackage(join(root, 'lib-1.0.0'), { name: 'ui-lib', version: '1.0.0', guid: LIB_GUID }, {
      'content/style.css': 'v1.0 style\n',
      'content/old.txt': 'only in 1.0.0\n',
      'content/secret.txt': 'private\n',
      'manifest.json': manifest({ 'content/style.css': ['text/css', 'exported'], 'content/old.txt': ['text/plain', 'exported'], 'content/secret.txt': ['text/plain', 'private'] }),
    }),
    '1.4.0': writePackage(join(root, 'lib-1.4.0'), { name: 'ui-lib', version: '1.4.0', guid: LIB_GUID }, {
      'content/style.css': 'v1.4 style\n',
      'content/shared.txt': 'from the library\n',
      'content/lib-only.txt': 'library file\n',
      'content/secret.txt': 'private\n',
      'manifest.json': manifest({
        'content/style.css': ['text/css', 'exported'],
        'content/shared.txt': ['text/plain', 'exported'],
        'content/lib-only.txt': ['text/plain', 'exported'],
        'content/secret.txt': ['text/plain', 'private'],
      }),
    }),
    '2.0.0': writePackage(join(root, 'lib-2.0.0'), { name: 'ui-lib', version: '2.0.0', guid: LIB_GUID }, { 'content/style.css': 'v2 style\n' }),
  };
  const site = writePackage(join(root, 'site'), { name: 'site', version: '1.0.0', guid: SITE_GUID, dependencies: { [LIB_GUID]: '^1.0.0' } }, {
    'content/index.html': '<!doctype html><title>Site</title><h1>site</h1>',
    'content/shared.txt': 'from the site\n',
    'routes.json': JSON.stringify({
      index: 'content/index.html',
      routes: [
        { path: '/', resource: 'content/index.html' },
        { path: '/lib.css', resource: `${LIB_GUID}/content/style.css` },
      ],
    }),
  });
  return { lib, site };
}

/** What a served package answers at `path`, as text; 404 when it has nothing there. */
export async function servedText(pkg: ServedPackage, path: string): Promise<string | 404> {
  const found = await pkg.lookup(path);
  if (found.kind !== 'hit') return 404;
  const chunks: Uint8Array[] = [];
  for await (const chunk of found.file.stream(0, found.file.size - 1)) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}
