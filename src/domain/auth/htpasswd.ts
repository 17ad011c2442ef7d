/**
 * An htpasswd file: one `user:hash` per line. Blank lines and `#` comments are
 * skipped; a user named twice keeps the first line, as Apache does.
 */
export function parseHtpasswd(text: string): Map<string, string> {
  const users = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const user = line.slice(0, colon);
    // Some tools append `:comment` fields after the hash; no hash format holds a colon.
    const hash = line.slice(colon + 1).split(':')[0]!;
    if (!users.has(user)) users.set(user, hash);
  }
  return users;
}
