/**
 * A configuration object's keys that its reader does not know, as one issue naming them
 * with their path (`where`), or none. A misspelt key is read as absent: for
 * `"basicauth"` or `"writeable"`, a setting turned off without a word. A key that differs
 * from a known one only by case gets a "did you mean".
 */
export function unknownKeyIssues(object: Record<string, unknown>, known: readonly string[], where: string): string[] {
  const unknown = Object.keys(object).filter((key) => !known.includes(key));
  if (unknown.length === 0) return [];
  const named = unknown.map((key) => {
    const near = known.find((candidate) => candidate.toLowerCase() === key.toLowerCase());
    return near === undefined ? JSON.stringify(key) : `${JSON.stringify(key)} (did you mean ${JSON.stringify(near)}?)`;
  });
  return [`${where === '' ? '' : `${where}: `}unknown ${unknown.length === 1 ? 'key' : 'keys'} ${named.join(', ')} (${where === '' ? 'the file' : where} takes ${known.join(', ')})`];
}
