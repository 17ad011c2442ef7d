import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';

const work = temporaryDirectory('cap-diff-');
const at = (name: string) => join(work.path, name);
afterAll(() => work.remove());

describe('pkg package diff', () => {
  let cap: string;
  let edited: string;
  beforeAll(() => {
    expect(runPkg(['package', 'pack', EXAMPLE_SITE, '-o', work.path]).status).toBe(0);
    cap = at('example-site-1.0.0.cap');
    edited = at('edited');
    cpSync(EXAMPLE_SITE, edited, { recursive: true });
    const metadata = JSON.parse(readFileSync(join(edited, 'metadata.json'), 'utf8'));
    writeFileSync(join(edited, 'metadata.json'), JSON.stringify({ ...metadata, version: '1.1.0' }, null, 2));
    writeFileSync(join(edited, 'content/news.html'), '<!doctype html><title>News</title><p>new</p>');
    rmSync(join(edited, 'content/about.html'));
    writeFileSync(join(edited, 'content/index.html'), `${readFileSync(join(EXAMPLE_SITE, 'content/index.html'), 'utf8')}<!-- edited -->`);
    const articles = JSON.parse(readFileSync(join(edited, 'data/articles.json'), 'utf8')) as Array<Record<string, unknown>>;
    articles[0]!.title = 'Hello again';
    articles.splice(1, 1);
    articles.push({ ...articles[1], id: 'brand-new' });
    writeFileSync(join(edited, 'data/articles.json'), JSON.stringify(articles));
  });

  it('finds nothing between a package and itself, directory or .cap, and exits 0', () => {
    // A directory compares as packed: its .cap differs only by what pack adds (security.json), which diff leaves to validate.
    for (const [a, b] of [[EXAMPLE_SITE, EXAMPLE_SITE], [cap, cap], [EXAMPLE_SITE, cap]]) {
      const run = runPkg(['package', 'diff', a!, b!]);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^No differences/);
    }
  });

  it('lists version, files, routes and dataset items that changed between a .cap and an edited directory, and exits 1', () => {
    const run = runPkg(['package', 'diff', cap, edited]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('example-site 1.0.0');
    expect(run.stdout).toContain('example-site 1.1.0');
    expect(run.stdout).toMatch(/\+ content\/news\.html\n/);
    expect(run.stdout).toMatch(/- content\/about\.html\n/);
    expect(run.stdout).toMatch(/~ content\/index\.html\n/);
    const report = JSON.parse(runPkg(['package', 'diff', cap, edited, '--json']).stdout);
    expect(report).toMatchObject({ equal: false, identity: { from: { version: '1.0.0' }, to: { version: '1.1.0' } }, signature: { from: 'unsigned', to: 'unsigned' }, encryption: { from: false, to: false } });
    expect(report.files.added).toEqual(['content/news.html']);
    expect(report.files.removed).toEqual(['content/about.html']);
    expect(report.files.changed).toEqual(expect.arrayContaining(['content/index.html', 'data/articles.json', 'metadata.json']));
    expect(report.routes.added).toEqual(['/news', '/news.html']);
    expect(report.routes.removed).toEqual(['/about', '/about.html']);
    expect(report.datasets.changed).toEqual(['articles']);
    expect(report.datasets.items.articles).toEqual({ added: ['brand-new'], removed: ['layers'], changed: ['hello-world'] });
  });

  it('reports signing and encryption state', () => {
    execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', at('key.pem')], { stdio: 'pipe' });
    execFileSync('openssl', ['pkey', '-in', at('key.pem'), '-pubout', '-out', at('pub.pem')], { stdio: 'pipe' });
    expect(runPkg(['package', 'sign', cap, '--key', at('key.pem'), '-o', at('signed.cap')]).status).toBe(0);
    expect(runPkg(['package', 'encrypt', cap, '--public-key', at('pub.pem'), '-o', at('encrypted.cap')]).status).toBe(0);
    const signed = runPkg(['package', 'diff', cap, at('signed.cap')]);
    expect(signed.status).toBe(1);
    expect(signed.stdout).toContain('signature: unsigned -> RSA-SHA256');
    expect(signed.stdout).toMatch(/\+ signature\.pub\.pem\n/);
    const encrypted = runPkg(['package', 'diff', cap, at('encrypted.cap')]);
    expect(encrypted.status).toBe(1);
    expect(encrypted.stdout).toContain('encryption: not encrypted -> encrypted');
    expect(encrypted.stdout).toMatch(/\+ package\.enc\n/);
  });

  it('a path that is not a package is a typed error', () => {
    const run = runPkg(['package', 'diff', cap, at('missing.cap')]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^error: \w+Error: /);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
