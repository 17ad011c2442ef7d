import { Parser } from 'htmlparser2';
import { parse as parseCss, walk } from 'css-tree';
import { init as initModuleLexer, parse as parseModule } from 'es-module-lexer';
import type { ContentReference, ContentReferenceScanner } from '../../application/ports/content-references.js';

/** Attributes whose URL a browser loads or follows. `cite`, `xmlns` and the like are only names. */
const URL_ATTRIBUTES = new Set(['src', 'href', 'xlink:href', 'action', 'formaction', 'poster', 'background', 'manifest']);
const HTML = /\.(x?html?|svg)$/i;
const CSS = /\.css$/i;
const JS = /\.m?js$/i;

/**
 * The content check with real parsers: htmlparser2 for HTML (and SVG), css-tree for
 * stylesheets and `<style>`/`style=`, es-module-lexer for `import` specifiers in modules
 * and inline scripts. Regular expressions over whole files flagged a vendored library
 * for URLs in its comments and error strings; these see only what a browser would fetch.
 */
export class ParsedReferenceScanner implements ContentReferenceScanner {
  async scan(path: string, text: string): Promise<ContentReference[]> {
    if (HTML.test(path)) return scanHtml(text, await moduleLexer());
    if (CSS.test(path)) return scanCss(text, 1);
    if (JS.test(path)) return scanModule(text, 1, await moduleLexer());
    return [];
  }
}

let lexerReady: Promise<typeof parseModule> | undefined;
function moduleLexer(): Promise<typeof parseModule> {
  return (lexerReady ??= initModuleLexer().then(() => parseModule));
}

function isExternal(url: string): boolean {
  // As a browser's URL parser reads it: tabs and line breaks dropped, a backslash a slash (`/\t/host`, `\\host` lead off the site too).
  return /^[\0- ]*(?:https?:)?\/\//i.test(url.replace(/[\t\n\r]/g, '').replace(/\\/g, '/'));
}

/** Line numbers from offsets, by the positions of the newlines. */
function lineCounter(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
}

function scanHtml(text: string, lexer: typeof parseModule): ContentReference[] {
  const found: ContentReference[] = [];
  const lineAt = lineCounter(text);
  let inside: { tag: 'style' | 'script'; module: boolean; start: number; text: string } | undefined;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const line = lineAt(parser.startIndex);
        for (const [attribute, value] of Object.entries(attributes)) {
          const lower = attribute.toLowerCase();
          if (URL_ATTRIBUTES.has(lower) || (lower === 'data' && name === 'object')) {
            if (isExternal(value)) found.push({ line, url: value.trim() });
          } else if (lower === 'srcset' || lower === 'imagesrcset') {
            for (const candidate of value.split(',')) {
              const url = candidate.trim().split(/\s+/)[0] ?? '';
              if (isExternal(url)) found.push({ line, url });
            }
          } else if (lower === 'ping') {
            // Hyperlink auditing: the browser posts to each of these URLs when the link is followed.
            for (const url of value.trim().split(/\s+/)) if (isExternal(url)) found.push({ line, url });
          } else if (lower === 'style') {
            found.push(...scanCss(value, line, true));
          } else if (lower === 'content' && name === 'meta' && attributes['http-equiv']?.toLowerCase() === 'refresh') {
            const url = /url\s*=\s*['"]?([^'"\s;]+)/i.exec(value)?.[1];
            if (url && isExternal(url)) found.push({ line, url });
          }
        }
        if (name === 'style' || (name === 'script' && attributes.src === undefined)) {
          inside = { tag: name, module: attributes.type === 'module', start: parser.endIndex + 1, text: '' };
        }
      },
      ontext(chunk) {
        if (inside) inside.text += chunk;
      },
      onclosetag(name) {
        if (!inside || inside.tag !== name) return;
        const line = lineAt(inside.start);
        found.push(...(inside.tag === 'style' ? scanCss(inside.text, line) : scanModule(inside.text, line, lexer)));
        inside = undefined;
      },
    },
    { decodeEntities: true, lowerCaseAttributeNames: true },
  );
  parser.end(text);
  return found;
}

/** `url()` values and `@import`s; `declarations` for the body of a `style=` attribute. */
function scanCss(text: string, firstLine: number, declarations = false): ContentReference[] {
  const found: ContentReference[] = [];
  let tree;
  try {
    tree = parseCss(text, { positions: true, ...(declarations ? { context: 'declarationList' } : {}), onParseError: () => undefined });
  } catch {
    return found;
  }
  walk(tree, (node) => {
    const line = firstLine + (node.loc ? node.loc.start.line - 1 : 0);
    if (node.type === 'Url' && isExternal(node.value)) found.push({ line, url: node.value });
    if (node.type === 'Atrule' && node.name.toLowerCase() === 'import' && node.prelude?.type === 'AtrulePrelude') {
      walk(node.prelude, (inner) => {
        if (inner.type === 'String' && isExternal(inner.value)) found.push({ line, url: inner.value });
      });
    }
  });
  return found;
}

/** `import` and `export ... from` specifiers, static and dynamic with a literal: what a module loads. */
function scanModule(text: string, firstLine: number, lexer: typeof parseModule): ContentReference[] {
  let imports;
  try {
    [imports] = lexer(text);
  } catch {
    // Not a module the lexer can read (a classic script with unusual syntax): it imports nothing.
    return [];
  }
  const lineAt = lineCounter(text);
  const found: ContentReference[] = [];
  for (const entry of imports) if (typeof entry.specifier === 'string' && isExternal(entry.specifier)) found.push({ line: firstLine + lineAt(entry.importStart) - 1, url: entry.specifier });
  return found;
}
