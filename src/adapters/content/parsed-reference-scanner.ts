import { Tokenizer } from 'htmlparser2';
import { decodeHTMLAttribute } from 'entities';
import { init as initModuleLexer, parse as parseModule } from 'es-module-lexer';
import type { parse as ParseCss, walk as WalkCss } from 'css-tree';
import type { ContentReference, ContentReferenceScanner } from '../../application/ports/content-references.js';
import { UnscannableContentError } from '../../domain/errors.js';
import { mediaTypeEssence, typeByExtension } from '../../domain/package/media-types.js';
import { speculationRuleUrls } from './speculation-rules.js';
import { isExternal, refreshUrl, srcsetUrls } from '../../domain/validation/external-urls.js';

/** Attributes whose URL a browser loads or follows. `cite`, `xmlns` and the like are only names. */
const URL_ATTRIBUTES = new Set(['src', 'href', 'xlink:href', 'action', 'formaction', 'poster', 'background', 'manifest', 'lowsrc']);
/** Plugin elements' URLs: the base their other URLs resolve against, and the archives they load, a list (space-separated for `<object>`, comma-separated for `<applet>`). */
const PLUGIN_ELEMENTS = new Set(['object', 'applet']);
/**
 * By the type a file is served as, not its name: a browser reads `page.txt` served as
 * text/html, or an extensionless `about` sniffed as HTML, as HTML.
 */
const HTML = /^(?:text\/html|application\/xhtml\+xml|image\/svg\+xml)$/;
const CSS = /^text\/css$/;
const JS = /^(?:text|application)\/(?:x-)?(?:javascript|ecmascript)$/;
/** XML documents, where `<?xml-stylesheet href?>` loads a stylesheet; in HTML it is a bogus comment. */
const XML = /^(?:application\/xhtml\+xml|image\/svg\+xml)$/;
/**
 * What every `<style>` element and `style=` attribute holds, in any case: their names take
 * no character references. A `srcdoc` document may spell its `style` with them.
 */
const MAY_HOLD_CSS = /style|srcdoc|url\(/i;
/** How many `srcdoc` documents inside one another are read: each is a call deeper. */
const MAX_SRCDOC_DEPTH = 16;

/**
 * The content check with real parsers: htmlparser2 for HTML (and SVG), css-tree for
 * stylesheets and `<style>`/`style=`, es-module-lexer for `import` specifiers in modules
 * and inline scripts. Regular expressions over whole files flagged a vendored library
 * for URLs in its comments and error strings; these see only what a browser would fetch.
 */
export class ParsedReferenceScanner implements ContentReferenceScanner {
  async scan(path: string, text: string, type = typeByExtension(path) ?? ''): Promise<ContentReference[]> {
    const essence = mediaTypeEssence(type);
    if (HTML.test(essence)) return scanHtml(text, await moduleLexer(), MAY_HOLD_CSS.test(text) ? await cssParser() : undefined, XML.test(essence));
    if (CSS.test(essence)) return scanCss(text, await cssParser());
    if (JS.test(essence)) return scanModule(text, await moduleLexer());
    return [];
  }
}

interface CssParser {
  parse: typeof ParseCss;
  walk: typeof WalkCss;
}

/** Loaded for the first stylesheet: css-tree costs a start 60 ms and megabytes, and many packages have none. */
let cssReady: Promise<CssParser> | undefined;
function cssParser(): Promise<CssParser> {
  // One after the other: they share modules, and two imports of one module at once trip jest's ESM loader.
  return (cssReady ??= import('css-tree/parser').then(async (parser) => ({ parse: parser.default, walk: (await import('css-tree/walker')).default })));
}

let lexerReady: Promise<typeof parseModule> | undefined;
function moduleLexer(): Promise<typeof parseModule> {
  return (lexerReady ??= initModuleLexer().then(() => parseModule));
}

/** The URLs an import map names: what `import` of a bare name loads. Not JSON, or not a map: a browser ignores it. */
function importMapUrls(text: string): string[] {
  let map: unknown;
  try {
    map = JSON.parse(text);
  } catch {
    return [];
  }
  const values = (object: unknown): string[] => (typeof object === 'object' && object !== null ? Object.values(object).filter((url): url is string => typeof url === 'string') : []);
  if (typeof map !== 'object' || map === null) return [];
  const { imports, scopes } = map as { imports?: unknown; scopes?: unknown };
  return [...values(imports), ...(typeof scopes === 'object' && scopes !== null ? Object.values(scopes).flatMap(values) : [])];
}

/** Line numbers from offsets, by the positions of the newlines: found on the first question, since most files have no external reference to place. */
function lineCounter(text: string): (offset: number) => number {
  let starts: number[] | undefined;
  return (offset) => {
    if (!starts) {
      starts = [0];
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    }
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

/** SVG presentation attributes that take a url(): paint servers, filters, masks, clips, markers and cursors. */
const SVG_PAINT_ATTRIBUTES = new Set(['fill', 'stroke', 'filter', 'mask', 'clip-path', 'marker-start', 'marker-mid', 'marker-end', 'cursor']);

/** Elements whose content is another language, where `<x/>` closes x as it opens it. */
const FOREIGN = new Set(['svg', 'math']);

/**
 * The tags of an HTML (or SVG) file, read with htmlparser2's tokenizer. Its tree builder
 * (Parser) keeps the open elements in a list it searches and shifts on every tag: 200,000
 * nested `<div>`s, a megabyte, kept validate busy for 16 seconds. Finding references
 * needs no tree: a tag's attributes, and the text of `<style>` and `<script>`.
 * `css`: loaded when the text may hold CSS (`MAY_HOLD_CSS`), so whenever a `<style>` or `style=` is met.
 */
function scanHtml(text: string, lexer: typeof parseModule, css: CssParser | undefined, xml = false, depth = 0): ContentReference[] {
  const found: ContentReference[] = [];
  const lineAt = lineCounter(text);
  let tag = { name: '', start: 0, attributes: new Map<string, string>() };
  let attribute = { name: '', value: '' };
  let inside: { tag: string; start: number; text: string; json?: (text: string) => string[] } | undefined;
  let foreign = 0;

  const opened = (end: number, closesItself: boolean) => {
    const { name, start, attributes } = tag;
    const add = (url: string) => found.push({ line: lineAt(start), url });
    for (const [attribute, raw] of attributes) {
      const value = raw.includes('&') ? decodeHTMLAttribute(raw) : raw;
      if (URL_ATTRIBUTES.has(attribute) || (attribute === 'data' && name === 'object')) {
        if (isExternal(value)) add(value.trim());
      } else if (attribute === 'srcset' || attribute === 'imagesrcset') {
        for (const url of srcsetUrls(value)) if (isExternal(url)) add(url);
      } else if (attribute === 'codebase' && PLUGIN_ELEMENTS.has(name)) {
        if (isExternal(value)) add(value.trim());
      } else if (attribute === 'archive' && PLUGIN_ELEMENTS.has(name)) {
        for (const url of value.split(name === 'applet' ? /[\s,]+/ : /\s+/)) if (isExternal(url)) add(url);
      } else if (attribute === 'ping' || attribute === 'attributionsrc') {
        // Hyperlink auditing, attribution reporting: the browser requests each of these URLs when the link is followed or the element loads.
        for (const url of value.trim().split(/\s+/)) if (isExternal(url)) add(url);
      } else if (attribute === 'style') {
        placeBelow(found, scanCss(value, css!, true), () => lineAt(start));
      } else if ((foreign > 0 || FOREIGN.has(name) || xml) && SVG_PAINT_ATTRIBUTES.has(attribute) && /url\(/i.test(value)) {
        // An SVG presentation attribute is a CSS property: fill="url(https://...#grad)" is fill: url(...).
        placeBelow(found, scanCss(`${attribute}: ${value}`, css!, true), () => lineAt(start));
      } else if (attribute === 'content' && name === 'meta' && decodeHTMLAttribute(attributes.get('http-equiv') ?? '').toLowerCase() === 'refresh') {
        const url = refreshUrl(value);
        if (url !== undefined && isExternal(url)) add(url.trim());
      } else if (attribute === 'srcdoc' && name === 'iframe') {
        // The frame's whole document: what it loads, the page loads.
        if (depth >= MAX_SRCDOC_DEPTH) throw new UnscannableContentError(`its iframe srcdoc documents nest more than ${MAX_SRCDOC_DEPTH} deep`);
        for (const { url } of scanHtml(value, lexer, css, false, depth + 1)) add(url);
      }
    }
    if (closesItself) return;
    if (FOREIGN.has(name)) foreign++;
    if (name === 'style' || (name === 'script' && !attributes.has('src'))) {
      const type = name === 'script' ? decodeHTMLAttribute(attributes.get('type') ?? '').trim().toLowerCase() : '';
      const json = JSON_SCRIPTS.get(type);
      inside = { tag: name, start: end + 1, text: '', ...(json ? { json } : {}) };
    }
  };
  const closed = () => {
    if (!inside) return;
    const { start } = inside;
    placeBelow(found, inside.tag === 'style' ? scanCss(inside.text, css!) : inside.json ? scanJsonScript(inside.text, inside.json) : scanModule(inside.text, lexer), () => lineAt(start));
    inside = undefined;
  };

  const tokenizer = new Tokenizer(
    // Character references are decoded in attribute values only (above), as a browser
    // reads them; in text they would cost the tokenizer most of its time and never hold a
    // URL, and in <script> and <style> a browser does not decode them either.
    { decodeEntities: false },
    {
      onopentagname(start, end) {
        tag = { name: text.slice(start, end).toLowerCase(), start: start - 1, attributes: new Map() };
      },
      onattribname(start, end) {
        attribute = { name: text.slice(start, end).toLowerCase(), value: '' };
      },
      onattribdata(start, end) {
        attribute.value += text.slice(start, end);
      },
      onattribend() {
        // The first of two same-named attributes is the one a browser keeps.
        if (!tag.attributes.has(attribute.name)) tag.attributes.set(attribute.name, attribute.value);
      },
      onopentagend(end) {
        opened(end, false);
      },
      onselfclosingtag(end) {
        // In HTML `<script/>` opens a script as `<script>` does; in SVG and MathML it is whole.
        opened(end, foreign > 0);
      },
      ontext(start, end) {
        if (inside) inside.text += text.slice(start, end);
      },
      onclosetag(start, end) {
        const name = text.slice(start, end).toLowerCase();
        if (FOREIGN.has(name) && foreign > 0) foreign--;
        if (inside?.tag === name) closed();
      },
      onend: closed,
      isInForeignContext: () => foreign > 0,
      onattribentity() {},
      ontextentity() {},
      oncdata() {},
      oncomment(start, end) {
        // Out of XML mode the tokenizer reads `<?xml-stylesheet href="..."?>` as a bogus comment starting at its `?`.
        if (!xml || !text.startsWith('?xml-stylesheet', start)) return;
        const href = /\shref\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(text.slice(start, end))?.slice(1).find((value) => value !== undefined);
        if (href !== undefined && isExternal(decodeHTMLAttribute(href))) found.push({ line: lineAt(start), url: decodeHTMLAttribute(href).trim() });
      },
      ondeclaration() {},
      onprocessinginstruction() {},
    },
  );
  tokenizer.write(text);
  tokenizer.end();
  return found;
}

/** Adds references found in a part of a file (lines counted from 1 there) at their lines in the whole: `firstLine` is asked only when there are any. One by one: a spread of 200,000 would overflow the stack. */
function placeBelow(found: ContentReference[], references: readonly ContentReference[], firstLine: () => number): void {
  if (references.length === 0) return;
  const first = firstLine();
  for (const { line, url } of references) found.push({ line: first + line - 1, url });
}

/** `url()` values and `@import`s; `declarations` for the body of a `style=` attribute. */
function scanCss(text: string, { parse, walk }: CssParser, declarations = false): ContentReference[] {
  const found: ContentReference[] = [];
  try {
    // Syntax errors are skipped as a browser skips them. Anything else is thrown on: css-tree
    // hands every error it catches to onParseError, a stack overflow too when it happens inside
    // a fallback block, and skipping that would pass the unread rest of the sheet as clean.
    const onParseError = (error: Error) => {
      if (error.name !== 'SyntaxError') throw error;
    };
    const tree = parse(text, { positions: true, ...(declarations ? { context: 'declarationList' } : {}), onParseError });
    walk(tree, (node) => {
      const line = node.loc ? node.loc.start.line : 1;
      if (node.type === 'Url' && isExternal(node.value)) found.push({ line, url: node.value });
      // image-set() takes its candidates as strings as well as url()s, and loads one of them.
      if (node.type === 'Function' && /^(?:-webkit-)?image-set$/i.test(node.name)) {
        for (const child of node.children) if (child.type === 'String' && isExternal(child.value)) found.push({ line: child.loc ? child.loc.start.line : line, url: child.value });
      }
      if (node.type === 'Atrule' && node.name.toLowerCase() === 'import' && node.prelude?.type === 'AtrulePrelude') {
        walk(node.prelude, (inner) => {
          if (inner.type === 'String' && isExternal(inner.value)) found.push({ line, url: inner.value });
        });
      }
    });
  } catch (error) {
    throw new UnscannableContentError(error instanceof RangeError ? 'its CSS nests deeper than the CSS parser reads' : `the CSS parser failed on it (${(error as Error).message})`);
  }
  return found;
}

/** Scripts that hold JSON naming URLs rather than code, by their type: the external URLs of each. */
const JSON_SCRIPTS = new Map<string, (text: string) => string[]>([
  ['importmap', (text) => importMapUrls(text).filter(isExternal)],
  ['speculationrules', (text) => speculationRuleUrls(text, isExternal)],
]);

/** A JSON script's external URLs, each at the line of its first spelling (JSON.parse gives no positions), in the order of their lines. */
function scanJsonScript(text: string, urls: (text: string) => string[]): ContentReference[] {
  const found = urls(text);
  if (found.length === 0) return [];
  const lineAt = lineCounter(text);
  const offsets = stringOffsets(text);
  // A host given alone (`{"hostname": "x"}`) is reported as `//x`, and spelled as `x`.
  return found.map((url) => ({ line: lineAt(offsets.get(url) ?? offsets.get(url.replace(/^\/\//, '')) ?? 0), url: url.trim() })).sort((a, b) => a.line - b.line);
}

/**
 * Where each string of a JSON text is first spelled, by its value, from one pass over the
 * text: looking each URL up with indexOf from the start took minutes for an import map of
 * 100,000 entries.
 */
function stringOffsets(text: string): Map<string, number> {
  const offsets = new Map<string, number>();
  // Unrolled, not (?:[^"\\]|\\.)*: the alternation overflows the regexp stack on a string of megabytes.
  for (const match of text.matchAll(/"[^"\\]*(?:\\.[^"\\]*)*"/g)) {
    let value: string;
    try {
      value = match[0].includes('\\') ? (JSON.parse(match[0]) as string) : match[0].slice(1, -1);
    } catch {
      continue;
    }
    if (!offsets.has(value)) offsets.set(value, match.index);
  }
  return offsets;
}

/** `import` and `export ... from` specifiers, static and dynamic with a literal: what a module loads. */
function scanModule(text: string, lexer: typeof parseModule): ContentReference[] {
  let imports;
  try {
    [imports] = lexer(text);
  } catch {
    // Not a module the lexer can read (a classic script with unusual syntax): it imports nothing.
    return [];
  }
  const lineAt = lineCounter(text);
  const found: ContentReference[] = [];
  for (const entry of imports) if (typeof entry.specifier === 'string' && isExternal(entry.specifier)) found.push({ line: lineAt(entry.importStart), url: entry.specifier });
  return found;
}
