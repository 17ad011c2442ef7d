import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';
import { startServe } from '../support/serve-process.js';

jest.setTimeout(120_000);

const work = temporaryDirectory('cap-init-');
const at = (name: string) => join(work.path, name);
afterAll(() => work.remove());

describe('pkg init', () => {
  it.each(['site', 'blog', 'docs', 'dataset-app', 'composite'])('scaffolds the %s template: it validates, tests, packs, and the .cap serves', async (template) => {
    const directory = at(template);
    const created = runPkg(['init', directory, '--template', template, '--name', `my-${template}`, '--description', 'Made by "init" <test>', '--author', 'Test Author']);
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    expect(created.stdout).toContain(`Created my-${template} (pkg://local/my-${template}) from the ${template} template`);
    const metadata = JSON.parse(readFileSync(join(directory, 'metadata.json'), 'utf8'));
    expect(metadata).toMatchObject({ name: `my-${template}`, version: '0.1.0', description: 'Made by "init" <test>', author: 'Test Author', guid: `pkg://local/my-${template}` });
    expect(metadata.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const validated = runPkg(['package', 'validate', directory]);
    expect(validated.stdout).toMatch(/Result: valid/);
    const tested = runPkg(['package', 'test', directory]);
    expect(tested.stdout).toMatch(/ 0 failed/);
    expect(tested.status).toBe(0);
    expect(runPkg(['package', 'pack', directory, '-o', work.path]).status).toBe(0);
    const cap = at(`my-${template}-0.1.0.cap`);
    expect(runPkg(['package', 'validate', cap]).status).toBe(0);
    const running = await startServe([cap]);
    try {
      const home = await fetch(`${running.url}/`);
      expect(home.status).toBe(200);
      expect(await home.text()).toContain('Made by &#34;init&#34; &#60;test&#62;');
    } finally {
      await running.stop();
    }
  });

  it('links every page of every template relatively, so each works mounted at /<name>/ beside another package', async () => {
    const templates = ['site', 'blog', 'docs', 'dataset-app', 'composite'];
    const running = await startServe([at('my-site-0.1.0.cap'), ...templates.map((template) => at(`my-${template}-0.1.0.cap`))]);
    try {
      for (const template of templates) {
        const seen = new Set<string>();
        // A script's fetch() resolves against the page that runs it, not the script's own URL.
        const queue = [{ url: `${running.url}/my-${template}/`, page: '' }];
        while (queue.length > 0) {
          const { url, page } = queue.shift()!;
          if (seen.has(url)) continue;
          seen.add(url);
          const answer = await fetch(url);
          expect([url, answer.status]).toEqual([url, 200]);
          const text = await answer.text();
          // What a browser loads from a page or a script: href and src attributes, fetch('...') calls.
          const references = [...text.matchAll(/(?:href|src)="([^"]+)"|fetch\('([^']+)'\)/g)].map((match) => new URL(match[1] ?? match[2]!, url.endsWith('.js') ? page : url));
          for (const reference of references) {
            if (reference.origin !== running.url) continue;
            expect(reference.pathname.startsWith(`/my-${template}/`) ? reference.pathname : `${reference.pathname}, linked from ${url}`).toMatch(new RegExp(`^/my-${template}/`));
            if (/\.(html|css|js)$|\/[^./]*$/.test(reference.pathname)) queue.push({ url: reference.href, page: url });
          }
        }
        expect(seen.size).toBeGreaterThan(1);
      }
    } finally {
      await running.stop();
    }
  });

  it('bundles the composite template\'s dependency, so it needs no store or registry', () => {
    const index = JSON.parse(readFileSync(at('composite/packages/index.json'), 'utf8'));
    expect(index).toEqual({ 'pkg://local/my-composite-theme': { file: 'packages/my-composite-theme-1.0.0.cap', version: '1.0.0', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect(existsSync(at('composite/packages/my-composite-theme-1.0.0.cap'))).toBe(true);
    // validate resolves from the bundle as the reactor does, store or not: no resource left unchecked, and a bundle the reactor would refuse fails.
    expect(runPkg(['package', 'validate', at('composite')]).stdout).not.toMatch(/could not be checked/);
    const broken = at('composite-broken');
    cpSync(at('composite'), broken, { recursive: true });
    writeFileSync(join(broken, 'packages/index.json'), JSON.stringify({ 'pkg://local/my-composite-theme': { ...index['pkg://local/my-composite-theme'], sha256: '0'.repeat(64) } }));
    const refused = runPkg(['package', 'validate', broken]);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toMatch(/dependencies could not be resolved: bundled dependency pkg:\/\/local\/my-composite-theme .*packages\/index\.json says 0{64}/);
  });

  it('names the package after its directory and refuses a directory that holds files, unless --force, which keeps the others', () => {
    const directory = at('My Café');
    expect(runPkg(['init', directory]).status).toBe(0);
    expect(JSON.parse(readFileSync(join(directory, 'metadata.json'), 'utf8')).name).toBe('my-cafe');
    // A name with no letter a package name can hold gives no default: the error says so, and blames no --name never given.
    const nameless = runPkg(['init', at('日本')]);
    expect(nameless.stderr).toMatch(/^error: UsageError: the directory name "日本" gives no package name .*give one with --name\n/);
    expect(nameless.status).toBe(2);
    expect(runPkg(['init', at('日本'), '--name', 'nihon']).status).toBe(0);
    const again = runPkg(['init', directory]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/^error: OutputExistsError: .*use --force/);
    writeFileSync(join(directory, 'NOTES.md'), 'mine');
    writeFileSync(join(directory, 'content/index.html'), 'edited');
    expect(runPkg(['init', directory, '--force', '--template', 'docs']).status).toBe(0);
    expect(readFileSync(join(directory, 'NOTES.md'), 'utf8')).toBe('mine');
    expect(readFileSync(join(directory, 'content/index.html'), 'utf8')).toContain('Getting started');
  });

  it('fills an empty directory where it is (the shell in it stays in it), reads a directory after --, quotes it in its hints, and refuses what validate would', () => {
    const here = at('here');
    mkdirSync(here);
    const inode = statSync(here).ino;
    expect(runPkg(['init'], { cwd: here }).status).toBe(0);
    expect(statSync(here).ino).toBe(inode);
    expect(existsSync(join(here, 'metadata.json'))).toBe(true);
    const parent = at('dashes');
    mkdirSync(parent);
    writeFileSync(join(parent, 'mine.txt'), 'keep');
    const hints = runPkg(['init', '--force', '--', '-odd name'], { cwd: parent }).stdout;
    expect(hints).toMatch(/Next: npx pkg reactor serve '.\/-odd name' --watch/);
    // The hint works as written: the shell's word is the directory, never options.
    expect(runPkg(['package', 'test', './-odd name'], { cwd: parent })).toMatchObject({ status: 0, stdout: expect.stringMatching(/\d+ passed, 0 failed\n$/) });
    expect(readdirSync(parent).sort()).toEqual(['-odd name', 'mine.txt']);
    const empty = runPkg(['init', at('no-description'), '--description', ' ']);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/^error: UsageError: --description must not be empty/);
    writeFileSync(at('a-file'), 'x');
    const blocked = runPkg(['init', at('a-file'), '--force']);
    expect(blocked.status).toBe(2);
    expect(blocked.stderr).toMatch(/^error: UsageError: cannot write .*a-file\/.*: a file stands where a folder of that path must be/);
  });

  it('answers a destination that cannot be written with a typed error, never a hang', () => {
    const run = runPkg(['init', '/proc/cannot-be-written']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^error: UsageError: cannot write into \/proc/);
  });

  it.each([
    [['--template', 'nope'], /UsageError: no template "nope"; templates: blog, composite, dataset-app, docs, site/],
    [['--name', 'Not Kebab'], /UsageError: --name "Not Kebab" must be kebab-case/],
    [['--package-version', 'one'], /UsageError: --package-version "one" is not a semantic version/],
    [['--name', 'a'.repeat(101)], /UsageError: --name takes at most 100 characters, since it names files \(got 101\)/],
    [['--guid', 'no uri'], /UsageError: --guid "no uri" is not a URI/],
  ])('refuses %j with a usage error and writes nothing', (args, message) => {
    const directory = at(`refused-${readdirSync(work.path).length}`);
    const run = runPkg(['init', directory, ...args]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(existsSync(directory)).toBe(false);
  });

  it('asks for what the flags leave open, only on a terminal', () => {
    const directory = at('asked');
    mkdirSync(directory);
    // script(1) gives the CLI a pseudo-terminal; the answers arrive on it line by line.
    const answers = 'blog\nasked-blog\nA blog made by answering\nAnswering Author\n';
    const run = spawnSync('script', ['-qec', `${process.execPath} ${CLI} init .`, '/dev/null'], { cwd: directory, input: answers, encoding: 'utf8', timeout: 60_000 });
    expect(run.stdout).toMatch(/Template \[blog, composite, dataset-app, docs, site\] \(site\):/);
    expect(run.status).toBe(0);
    expect(JSON.parse(readFileSync(join(directory, 'metadata.json'), 'utf8'))).toMatchObject({ name: 'asked-blog', description: 'A blog made by answering', author: 'Answering Author' });
    expect(existsSync(join(directory, 'content/posts/hello-world.html'))).toBe(true);
  });
});
