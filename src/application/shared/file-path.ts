/** `/a/b/c.cap` -> `{directory: '/a/b', fileName: 'c.cap'}`: where an archive writer puts a named output. */
export function splitFilePath(path: string): { directory: string; fileName: string } {
  const slash = path.lastIndexOf('/');
  return { directory: slash < 0 ? '.' : path.slice(0, slash) || '/', fileName: path.slice(slash + 1) };
}
