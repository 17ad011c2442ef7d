import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CLI, ROOT } from '../support/paths.js';

/** Every file a `pkg` start compiles: the entry and the chunks it imports statically, transitively. */
function startUpFiles(entry: string): Map<string, string> {
  const files = new Map<string, string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    const text = readFileSync(file, 'utf8');
    files.set(file, text);
    // `import "./x.js"` and `import { a } from "./x.js"` (over several lines); not `import("./x.js")`.
    for (const [, path] of text.matchAll(/^(?:import|export)\s*(?:[^;"(]*?\sfrom\s*)?"(\.[^"]+)"/gm)) visit(join(dirname(file), path!));
  };
  visit(entry);
  return files;
}

/**
 * Whether esbuild's path comments show a module of the library: `// node_modules/yargs/...`,
 * or `// ../main/node_modules/yargs/...` where node_modules is a link to another checkout's.
 */
function bundledFrom(text: string, library: string): boolean {
  return new RegExp(`^// (?:\\S*/)?node_modules/${library}/`, 'm').test(text);
}

describe('the start-up bundle', () => {
  // Each of these costs the reactor's cold start tens of milliseconds; they are imported on first use.
  it.each(['express', 'body-parser', 'iconv-lite', 'ajv', 'graphql', 'openpgp', 'htmlparser2', 'es-module-lexer', 'prom-client', 'pino'])('does not compile %s at start-up', (library) => {
    const files = startUpFiles(CLI);
    expect(files.size).toBeGreaterThan(1);
    const holders = [...files].filter(([, text]) => bundledFrom(text, library)).map(([file]) => file);
    expect(holders).toEqual([]);
  });

  it('does not load node:assert at start-up: yargs gets stand-ins that load it only to throw', () => {
    const imports = [...startUpFiles(CLI).values()].flatMap((text) => [...text.matchAll(/^import\s[^;]*?from\s*"((?:node:)?assert(?:\/strict)?)"/gm)].map((match) => match[1]));
    expect(imports).toEqual([]);
    expect(readFileSync(CLI, 'utf8')).toContain('// lazy-assert:assert');
  });

  it('still holds what every start needs (the check above is not vacuous)', () => {
    const all = [...startUpFiles(CLI).values()].join('\n');
    expect(bundledFrom(all, 'yargs')).toBe(true);
    expect(all).toContain('// src/adapters/archive/zip/central-directory.ts');
  });

  it('every entry the build writes beside pkg.js (the worker threads and processes it starts) is published with it', () => {
    const { files } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    const entries = readdirSync(dirname(CLI)).filter((name) => name.endsWith('.js'));
    expect(entries).toEqual(expect.arrayContaining(['pkg.js', 'access-log-worker.js', 'password-worker.js', 'verify-process.js']));
    for (const entry of entries) expect(files).toEqual(expect.arrayContaining([`dist/${entry}`, `dist/${entry}.map`]));
  });
});
