import { CONTENT_DIR, METADATA_FILE } from './package-paths.js';

/**
 * Why a package without metadata.json at its top may be one all the same: an archive made by
 * zipping the package's folder (Finder, Explorer, `zip -r site.cap site`) holds everything
 * below `site/`, `site/metadata.json` too, and "missing" alone leaves its maker looking in
 * the wrong place. Empty when the files are not all in one such folder.
 */
export function nestedPackageHint(paths: Iterable<string>): string {
  let folder: string | undefined;
  let holdsMetadata = false;
  for (const path of paths) {
    // Finder adds its resource forks beside the folder.
    if (path.startsWith('__MACOSX/')) continue;
    const slash = path.indexOf('/');
    if (slash <= 0) return '';
    folder ??= path.slice(0, slash + 1);
    if (!path.startsWith(folder)) return '';
    holdsMetadata ||= path === `${folder}${METADATA_FILE}`;
  }
  // content/metadata.json is a page of a package that lacks its own.
  if (!holdsMetadata || folder === CONTENT_DIR) return '';
  return ` (${folder}${METADATA_FILE} is one folder down: a package's files sit at its top, as pkg package pack writes them, not inside a folder as zipping the folder puts them)`;
}
