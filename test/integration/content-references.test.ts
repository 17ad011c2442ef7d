import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { decodeHTMLAttribute } from 'entities';
import { Parser } from 'htmlparser2';
import { ParsedReferenceScanner } from '../../src/adapters/content/parsed-reference-scanner.js';
import { UnscannableContentError } from '../../src/domain/errors.js';

const scanner = new ParsedReferenceScanner();
const scan = (path: string, text: string) => scanner.scan(path, text);

describe('external references in HTML: what a browser loads or follows', () => {
  it('finds src, href, srcset, action, formaction, poster, object data, background, meta refresh, with their lines', async () => {
    const html = [
      '<!doctype html>',
      '<img src="https://cdn.example.com/a.png" srcset="/b.png 1x, https://cdn.example.com/b@2x.png 2x">',
      '<a href="//other.example/page" ping="/local https://track.example/ping">x</a>',
      '<form action="https://forms.example/post"><button formaction="http://forms.example/alt">go</button></form>',
      '<video poster="https://media.example/poster.jpg"></video><object data="https://media.example/x.swf"></object>',
      '<table background="https://img.example/bg.gif"></table>',
      '<meta http-equiv="refresh" content="0; url=https://elsewhere.example/">',
      '<svg><use xlink:href="https://icons.example/sprite.svg#a"></use></svg>',
    ].join('\n');
    expect(await scan('content/index.html', html)).toEqual([
      { line: 2, url: 'https://cdn.example.com/a.png' },
      { line: 2, url: 'https://cdn.example.com/b@2x.png' },
      { line: 3, url: '//other.example/page' },
      { line: 3, url: 'https://track.example/ping' },
      { line: 4, url: 'https://forms.example/post' },
      { line: 4, url: 'http://forms.example/alt' },
      { line: 5, url: 'https://media.example/poster.jpg' },
      { line: 5, url: 'https://media.example/x.swf' },
      { line: 6, url: 'https://img.example/bg.gif' },
      { line: 7, url: 'https://elsewhere.example/' },
      { line: 8, url: 'https://icons.example/sprite.svg#a' },
    ]);
  });

  it("reads a srcset as HTML's parser does: a comma inside a URL is part of it, descriptors run to a comma outside parentheses", async () => {
    const html = ['<img srcset="/a,//b.example/x.png 1x">', '<img srcset="/c.png 1x,https://d.example/y.png 2x">', '<img srcset="/e.png,,, https://f.example/z.png">', '<img srcset="/g.png (w, https://not-a-url) 1x, /h.png">'].join('\n');
    expect(await scan('content/index.html', html)).toEqual([
      { line: 2, url: 'https://d.example/y.png' },
      { line: 3, url: 'https://f.example/z.png' },
    ]);
  });

  it('finds url()s in SVG presentation attributes, inline and in an SVG file, not in an HTML attribute of the same name', async () => {
    const html = ['<svg fill="url(https://paint.example/g.svg#a)">', '<rect filter="url(\'https://fx.example/f.svg#b\')" mask="url(#local)"/></svg>', '<div fill="url(https://not-svg.example/x)"></div>'].join('\n');
    expect(await scan('content/index.html', html)).toEqual([
      { line: 1, url: 'https://paint.example/g.svg#a' },
      { line: 2, url: 'https://fx.example/f.svg#b' },
    ]);
    const svg = '<svg xmlns="http://www.w3.org/2000/svg">\n<path stroke="URL( //stroke.example/s.svg#c )" clip-path="url(#c)"/></svg>';
    expect(await scan('content/icon.svg', svg)).toEqual([{ line: 2, url: '//stroke.example/s.svg#c' }]);
  });

  it('reads a URL as a browser does: tabs and line breaks inside dropped, backslashes as slashes', async () => {
    const html = ['<img src="/\t/tab.example/a.png">', '<a href="\\\\back.example/x">x</a>', '<script src="https:\\\\mixed.example/s.js"></script>', '<a href="\\relative\\path">local</a>'].join('\n');
    expect((await scan('content/index.html', html)).map(({ line }) => line)).toEqual([1, 2, 3]);
  });

  it('reads attribute values with their character references decoded, as a browser does; text and scripts stay as written', async () => {
    const html = [
      '<img src="&#x2F;&#47;cdn.example/a.png">',
      '<a href="https&colon;&sol;&sol;named.example/">x</a>',
      '<link rel="stylesheet" href="https://q.example/a.css?x=1&amp;y=2">',
      '<p style="background: url(&quot;//style.example/b.png&quot;)">x</p>',
      '<script type="&#109;odule">import "https://esm.example/m.js";</script>',
      '<p>&#x2F;&#x2F;text.example is prose, not a link</p>',
      '<script>const s = "&#x2F;&#x2F;not-decoded.example"; import("&#47;/raw.example/x.js");</script>',
    ].join('\n');
    expect(await scan('content/index.html', html)).toEqual([
      { line: 1, url: '//cdn.example/a.png' },
      { line: 2, url: 'https://named.example/' },
      { line: 3, url: 'https://q.example/a.css?x=1&y=2' },
      { line: 4, url: '//style.example/b.png' },
      { line: 5, url: 'https://esm.example/m.js' },
    ]);
  });

  it('decodes attribute values exactly as the parser itself would: any run of references, whole or broken off', () => {
    // The scanner has the parser skip references (they cost it most of its time in text) and decodes attribute values itself.
    const piece = fc.constantFrom('&', '#', 'x', 'X', ';', '/', ':', '=', 'a', 'amp', 'sol', 'colon', 'quot', 'lt', 'not', 'notin', '47', '2F', '0', '1114112', 'https', ' ', '\t');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join('')), (value) => {
        let parsed: string | undefined;
        new Parser({ onattribute: (_name, decoded) => (parsed = decoded) }, { decodeEntities: true }).end(`<a href="${value}">`);
        expect(decodeHTMLAttribute(value)).toBe(parsed);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 500) },
    );
  });

  it('finds url() and @import in <style> and style=, and imports in module scripts, at the line they are on', async () => {
    const html = ['<style>', '  @import "https://fonts.example/a.css";', '  body { background: url(https://img.example/b.png) }', '</style>', '<p style="background-image: url(\'https://img.example/c.png\')">x</p>', '<script type="module">', "  import x from 'https://esm.example/x.js';", "  const y = import('https://esm.example/y.js');", '</script>'].join('\n');
    expect(await scan('content/a.html', html)).toEqual([
      { line: 2, url: 'https://fonts.example/a.css' },
      { line: 3, url: 'https://img.example/b.png' },
      { line: 5, url: 'https://img.example/c.png' },
      { line: 7, url: 'https://esm.example/x.js' },
      { line: 8, url: 'https://esm.example/y.js' },
    ]);
  });

  it('finds what a browser loads in the less common places: a refresh URL without url=, an iframe srcdoc, an import map, an SVG xml-stylesheet, https: without slashes', async () => {
    const html = [
      '<meta http-equiv="refresh" content="0; https://refresh.example/">',
      '<meta http-equiv="Refresh" content="5,\'//quoted.example/\'">',
      '<iframe srcdoc="<p>x</p><img src=&quot;https://srcdoc.example/a.png&quot;>"></iframe>',
      '<script type="importmap">{"imports": {"lib": "https://map.example/lib.js", "own": "/own.js"}, "scopes": {"/a/": {"lib": "//scoped.example/lib.js"}}}</script>',
      '<script src="https:noslash.example/x.js"></script><img src="http:/one.example/x.png">',
      '<?xml-stylesheet href="https://html-bogus-comment.example/a.css"?>',
    ].join('\n');
    const found = (await scan('content/index.html', html)).map(({ line, url }) => `${line}: ${url}`);
    expect(found).toEqual(['1: https://refresh.example/', '2: //quoted.example/', '3: https://srcdoc.example/a.png', '4: https://map.example/lib.js', '4: //scoped.example/lib.js', '5: https:noslash.example/x.js', '5: http:/one.example/x.png']);
    // Only an XML document reads the processing instruction; in HTML it is a comment.
    expect(await scan('content/icon.svg', '<?xml version="1.0"?>\n<?xml-stylesheet type="text/css" href=\'https://pi.example/a.css\'?>\n<svg xmlns="http://www.w3.org/2000/svg"/>')).toEqual([{ line: 2, url: 'https://pi.example/a.css' }]);
    // A refresh to the page itself, or with no time, loads nothing from elsewhere.
    expect(await scan('content/a.html', '<meta http-equiv="refresh" content="30"><meta http-equiv="refresh" content="https://no-time.example/">')).toEqual([]);
  });

  it('finds the URLs of plugin elements, low-resolution images and attribution reporting: object and applet codebase and archive lists, img lowsrc, attributionsrc lists', async () => {
    const html = [
      '<object codebase="https://plugins.example/base/" data="movie.swf" classid="clsid:D27CDB6E"></object>',
      '<object archive="/local.jar  https://jars.example/a.jar\t//jars.example/b.jar"></object>',
      '<applet code="A.class" codebase="//applets.example/" archive="/own.jar,https://jars.example/c.jar, http://jars.example/d.jar"></applet>',
      '<img lowsrc="https://previews.example/low.png" src="/full.png" attributionsrc="/own https://attribution.example/a">',
      '<div codebase="https://not-a-plugin.example/" archive="https://not-a-plugin.example/x.jar"></div>',
    ].join('\n');
    expect((await scan('content/index.html', html)).map(({ line, url }) => `${line}: ${url}`)).toEqual([
      '1: https://plugins.example/base/',
      '2: https://jars.example/a.jar',
      '2: //jars.example/b.jar',
      '3: //applets.example/',
      '3: https://jars.example/c.jar',
      '3: http://jars.example/d.jar',
      '4: https://previews.example/low.png',
      '4: https://attribution.example/a',
    ]);
  });

  it('finds what speculation rules prefetch or prerender: list rules\' urls, and document rules\' href_matches patterns that reach another host, at their lines', async () => {
    const rules = {
      prerender: [{ source: 'list', urls: ['/next.html', 'https://prerender.example/page'] }],
      prefetch: [
        { urls: ['//prefetch.example/a'] },
        { where: { and: [{ href_matches: '/*' }, { not: { href_matches: ['https://other.example/*', '/logout'] } }] } },
        { where: { or: [{ href_matches: '*://any-scheme.example/*' }, { href_matches: { hostname: 'dict.example', pathname: '/*' } }, { href_matches: { pathname: '/own/*' } }] } },
      ],
    };
    const html = ['<p>page</p>', '<script type="speculationrules">', JSON.stringify(rules, null, 2), '</script>'].join('\n');
    const found = (await scan('content/index.html', html)).map(({ line, url }) => `${line}: ${url}`);
    expect(found).toEqual(['9: https://prerender.example/page', '16: //prefetch.example/a', '28: https://other.example/*', '40: *://any-scheme.example/*', '44: //dict.example']);
    // Not JSON, or JSON that is not rules, a browser ignores; a type it does not know is not speculation rules.
    expect(await scan('content/a.html', '<script type="speculationrules">{"prefetch": [{"urls": ["https://broken.example/"]</script><script type="SpeculationRules ">[1, null, "https://x.example/"]</script>')).toEqual([]);
    expect(await scan('content/a.html', '<script type="constructor">{}</script><script type="speculationrules">{"prefetch": [{"urls": "https://not-a-list.example/"}]}</script>')).toEqual([]);
  });

  it('reads srcdoc documents inside srcdoc documents as deep as a browser might, and refuses to guess past that', async () => {
    const nest = (depth: number) => {
      let html = '<img src="https://deep.example/a.png">';
      for (let level = 0; level < depth; level++) html = `<iframe srcdoc="${html.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"></iframe>`;
      return html;
    };
    expect(await scan('content/a.html', nest(16))).toEqual([{ line: 1, url: 'https://deep.example/a.png' }]);
    await expect(scan('content/a.html', nest(17))).rejects.toBeInstanceOf(UnscannableContentError);
  });

  it('does not count mentions: text, comments, cite, XML namespaces, DOCTYPE identifiers, relative and data URLs', async () => {
    const html = [
      '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">',
      '<html xmlns="http://www.w3.org/1999/xhtml">',
      '<!-- see https://comment.example/ -->',
      '<p>Visit https://text.example/ someday.</p>',
      '<blockquote cite="https://quote.example/">q</blockquote>',
      '<img src="/local.png"><img src="data:image/png;base64,AAAA"><a href="mailto:a@b.example">m</a><a href="#top">t</a>',
      '<script>console.log("https://string.example/")</script>',
    ].join('\n');
    expect(await scan('content/a.html', html)).toEqual([]);
  });
});

describe('external references in stylesheets and modules', () => {
  it('CSS: url() and @import, not comments', async () => {
    const css = '/* https://comment.example */\n@import url("https://fonts.example/b.css");\n.a { background: url(/ok.png) }\n.b { background: url(https://img.example/x.png) }';
    expect(await scan('content/s.css', css)).toEqual([
      { line: 2, url: 'https://fonts.example/b.css' },
      { line: 4, url: 'https://img.example/x.png' },
    ]);
  });

  it('CSS: image-set() candidates given as strings, as well as url()s', async () => {
    const css = '.a { background-image: image-set("https://img.example/a.png" 1x, "/b.png" 2x) }\n.b { background-image: -webkit-image-set(url(//img.example/c.png) 1x, \'https://img.example/d.png\' 2x) }';
    expect((await scan('content/s.css', css)).map(({ line, url }) => `${line}: ${url}`).sort()).toEqual(['1: https://img.example/a.png', '2: //img.example/c.png', '2: https://img.example/d.png']);
  });

  it('JS: static, dynamic and re-export specifiers, not strings or comments', async () => {
    const js = "// https://comment.example\nimport a from 'https://esm.example/a.js';\nexport { b } from 'https://esm.example/b.js';\nconst msg = 'https://string.example/';\nawait import('https://esm.example/c.js');\nimport d from './local.js';";
    expect(await scan('content/m.js', js)).toEqual([
      { line: 2, url: 'https://esm.example/a.js' },
      { line: 3, url: 'https://esm.example/b.js' },
      { line: 5, url: 'https://esm.example/c.js' },
    ]);
  });

  it('refuses a stylesheet nested deeper than the CSS parser reads, in a file, a <style> or a style=, as unscannable rather than clean', async () => {
    // At several depths: where the stack runs out (inside one of css-tree's fallback blocks or
    // not) depends on how far V8 has optimised the parser by then.
    for (const depth of [5_000, 20_000, 50_000, 200_000]) {
      const deep = `${'@media screen{'.repeat(depth)}a{b:url(//x.example/a.png)}${'}'.repeat(depth)}`;
      await expect(scan('content/deep.css', deep)).rejects.toThrow(UnscannableContentError);
      await expect(scan('content/index.html', `<style>${deep}</style>`)).rejects.toThrow(UnscannableContentError);
    }
    // A value too deep for css-tree becomes an unread block it skips: what it hides is not known to be clean.
    await expect(scan('content/index.html', `<p style="a:${'calc('.repeat(20_000)}url(//x.example/a.png)${')'.repeat(20_000)}">`)).rejects.toThrow(UnscannableContentError);
    expect(await scan('content/many.html', `<style>${'a{b:url(//x.example/i.png)}'.repeat(200_000)}</style>`)).toHaveLength(200_000);
  });

  it('reads deep and unbalanced markup in one pass: 200,000 nested elements, then as many end tags that close nothing', async () => {
    const html = `${'<div>'.repeat(200_000)}${'</span>'.repeat(200_000)}\n<img src="//end.example/a.png"><svg>${'<g>'.repeat(1000)}<script/><a href="//svg.example/"></a></svg>`;
    expect(await scan('content/deep.html', html)).toEqual([
      { line: 2, url: '//end.example/a.png' },
      { line: 2, url: '//svg.example/' },
    ]);
  });

  it('places the URLs of a large import map or speculation rules in one pass, and reads rules nested deeper than the stack', async () => {
    const urls = Array.from({ length: 100_000 }, (_, index) => `https://many.example/${index}`);
    const imports = JSON.stringify({ imports: Object.fromEntries(urls.map((url, index) => [`m${index}`, url])) }, null, 1);
    const rules = JSON.stringify({ prefetch: [{ urls }] }, null, 1);
    const started = Date.now();
    const found = [...(await scan('content/a.html', `<script type="importmap">${imports}</script>`)), ...(await scan('content/b.html', `<script type="speculationrules">${rules}</script>`))];
    expect(found).toHaveLength(200_000);
    expect(found[99_999]).toEqual({ line: 100_002, url: 'https://many.example/99999' });
    expect(found[199_999]).toEqual({ line: 100_004, url: 'https://many.example/99999' });
    // Looked up from the start of the text one by one, these took minutes.
    expect(Date.now() - started).toBeLessThan(20_000);
    const deep = `${'{"where": {"not": '.repeat(100_000)}{"href_matches": "https://deep.example/*"}${'}}'.repeat(100_000)}`;
    expect(await scan('content/c.html', `<script type="speculationrules">{"prefetch": [${deep}]}</script>`)).toEqual([{ line: 1, url: 'https://deep.example/*' }]);
  });

  it('other files are not scanned, and a file no parser can read reports nothing rather than failing', async () => {
    expect(await scan('content/readme.txt', 'https://text.example/')).toEqual([]);
    expect(await scan('content/broken.js', 'import from from from "')).toEqual([]);
    expect(await scan('content/broken.css', '@import url(')).toEqual([]);
  });
});
