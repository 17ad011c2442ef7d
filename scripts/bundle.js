// Bundles the CLI into one file: loading ~100 ES modules and their dependencies one by
// one cost 0.33 s per start; as one file it costs about half. (tsc type-checks first.)
// What a command needs only sometimes (express, ajv, GraphQL, openpgp) is imported
// dynamically, so it lands in a chunk that a start without it never compiles.
import { build, transform } from 'esbuild';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const target = new URL('../dist', import.meta.url).pathname;

/**
 * CommonJS libraries the source imports as a default and uses only through its
 * properties, which load when a property is first read: mime-types builds its table
 * of 2,000 types as it loads (7 ms), and a start that finds every type in the manifest
 * never looks one up; yaml's two dozen modules cost a start about 10 ms, and only a
 * YAML document (routes, data, mounts) needs them; bcryptjs only a bcrypt password. Each is bundled into a file of its
 * own below dist/lazy/, so a start that never uses it does not even compile it.
 */
const LAZY_LIBRARIES = ['bcryptjs', 'mime-types', 'semver', 'yaml'];
const lazyLibraries = {
  name: 'lazy-libraries',
  setup(build) {
    const filter = new RegExp(`^(${LAZY_LIBRARIES.join('|')})$`);
    build.onResolve({ filter }, ({ path, importer }) => (importer.includes('/src/') ? { path, namespace: 'lazy-library' } : undefined));
    // The stand-in lands in pkg.js or in a chunk below it; the path is made absolute from
    // there, since the require() that loads it may be another chunk's.
    build.onLoad({ filter: /.*/, namespace: 'lazy-library' }, ({ path }) => ({
      contents: `import { fileURLToPath } from 'node:url';
        const file = fileURLToPath(new URL((import.meta.url.includes('/chunks/') ? '../lazy/' : './lazy/') + ${JSON.stringify(`${path}.cjs`)}, import.meta.url));
        let loaded; export default new Proxy({}, { get: (_, key) => (loaded ??= require(file))[key] });`,
      loader: 'js',
    }));
  },
};

/**
 * yargs lays out help text with cliui and string-width, whose modules build an
 * Intl.Segmenter and a `\p{RGI_Emoji}` regex as they load: 20 ms of every start, though
 * only help and usage errors use them. yargs gets stand-ins that require() the real
 * modules on first call; esbuild makes a required ES module one that initializes then.
 */
const lazyHelpLayout = {
  name: 'lazy-help-layout',
  setup(build) {
    build.onResolve({ filter: /^(cliui|string-width)$/ }, ({ path, importer }) =>
      importer.includes('/node_modules/yargs/') ? { path, namespace: 'lazy-help-layout', pluginData: { resolveDir: dirname(importer) } } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy-help-layout' }, ({ path, pluginData }) => ({
      contents: `export default function lazy(...args) { return require(${JSON.stringify(path)}).default(...args); }`,
      resolveDir: pluginData.resolveDir,
      loader: 'js',
    }));
  },
};
/**
 * yargs checks its own state with node:assert's strictEqual and notStrictEqual, and
 * loading node:assert costs every start 2 ms (it opens stderr to learn its colours).
 * Its stand-ins compare as they do (Object.is) and load node:assert only to throw
 * its error when a check fails.
 */
const lazyAssert = {
  name: 'lazy-assert',
  setup(build) {
    build.onResolve({ filter: /^(node:)?assert$/ }, ({ path, importer }) => (importer.includes('/node_modules/yargs/') ? { path, namespace: 'lazy-assert' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'lazy-assert' }, () => ({
      contents: `export function strictEqual(actual, expected, message) { if (!Object.is(actual, expected)) require('node:assert').strictEqual(actual, expected, message); }
        export function notStrictEqual(actual, expected, message) { if (Object.is(actual, expected)) require('node:assert').notStrictEqual(actual, expected, message); }`,
      loader: 'js',
    }));
  },
};
// Chunk names carry a hash and entries come and go, so each build starts from an empty
// folder; it is built beside dist/ and swapped in at the end. A `pkg` started meanwhile
// (a test, or `npx pkg` from a subfolder, which builds the checkout through `prepare`)
// never finds dist/ half-written or gone.
const dist = `${target}.next-${process.pid}/`;
rmSync(dist, { recursive: true, force: true });
await build({
  // The child process that re-verifies packages off the event loop is an entry of its own,
  // beside pkg.js, where system-module looks for it.
  entryPoints: {
    pkg: new URL('../src/composition/cli-main.ts', import.meta.url).pathname,
    'verify-process': new URL('../src/composition/workers/verify-process.ts', import.meta.url).pathname,
    // The worker thread that checks passwords, beside pkg.js too, where auth-module looks for it.
    'password-worker': new URL('../src/composition/workers/password-worker.ts', import.meta.url).pathname,
    // The worker thread that writes JSON access lines, beside pkg.js too, where http-module looks for it.
    'access-log-worker': new URL('../src/composition/workers/access-log-worker.ts', import.meta.url).pathname,
    // The worker thread that reads SQLite tables, beside pkg.js too, where content-module looks for it.
    'sqlite-worker': new URL('../src/composition/workers/sqlite-worker.ts', import.meta.url).pathname,
  },
  outdir: dist,
  bundle: true,
  // What only some runs need (GraphQL) is imported on first use and loads from a chunk of its own.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  // sql.js finds its wasm file beside its own JS, so it is loaded from node_modules at run time.
  // css-tree reads its JSON data files with require() relative to itself: bundled, they are not there.
  // pg requires pg-native and pg-cloudflare only when asked for them (native bindings, Cloudflare Workers): never here.
  external: ['sql.js', 'css-tree', 'pg-native', 'pg-cloudflare'],
  plugins: [lazyHelpLayout, lazyAssert, lazyLibraries],
  // CommonJS dependencies bundled into ESM still call require().
  banner: { js: "import { createRequire as __pkgCreateRequire } from 'node:module'; const require = __pkgCreateRequire(import.meta.url);" },
});
chmodSync(`${dist}pkg.js`, 0o755);
for (const name of LAZY_LIBRARIES) {
  await build({
    stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: new URL('..', import.meta.url).pathname, loader: 'js' },
    outfile: `${dist}lazy/${name}.cjs`,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
  });
}

// The browser files the reactor serves itself (never from a CDN): GraphiQL's, and Swagger
// UI's for the API page. They go into dist/<folder>/ so the published package carries
// them: their packages are devDependencies, not installed with the tool. Each list is the
// source's own.
const root = new URL('../', import.meta.url).pathname;
const ASSET_SETS = [
  { list: '../src/adapters/http/graphql/graphiql-asset-list.ts', exported: 'GRAPHIQL_ASSETS', folder: 'graphiql', what: 'GraphiQL page' },
  { list: '../src/adapters/http/openapi/api-docs-asset-list.ts', exported: 'API_DOCS_ASSETS', folder: 'api-docs', what: 'API page' },
];
for (const set of ASSET_SETS) {
  const listSource = readFileSync(new URL(set.list, import.meta.url), 'utf8');
  const { code } = await transform(listSource, { loader: 'ts', format: 'esm' });
  const assetList = Object.values((await import(`data:text/javascript,${encodeURIComponent(code)}`))[set.exported]);
  const assets = `${dist}${set.folder}/`;
  mkdirSync(assets, { recursive: true });
  for (const asset of assetList) {
    const folder = packageFolder(asset.package, root);
    const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    if (version !== asset.version) throw new Error(`The ${set.what}'s ${asset.name} needs ${asset.package}@${asset.version}; node_modules holds ${version}: run npm install`);
    copyFileSync(join(folder, asset.file), assets + asset.name);
  }
  writeFileSync(`${assets}THIRD-PARTY-NOTICES.txt`, notices([...new Set(assetList.map((asset) => asset.package))], set.what));
}

// Two builds at once (two first `npx pkg` runs) may swap in turn: the last one wins.
const previous = `${target}.old-${process.pid}`;
for (;;) {
  try {
    renameSync(target, previous);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  try {
    renameSync(dist.slice(0, -1), target);
    break;
  } catch (error) {
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
  }
}
rmSync(previous, { recursive: true, force: true });

/** Where `name` is installed as seen from `from` (node's lookup: node_modules/ in each folder up). */
function packageFolder(name, from) {
  for (let folder = from; ; folder = dirname(folder)) {
    const candidate = join(folder, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(folder) === folder) throw new Error(`${name} is not installed (from ${from}): run npm install`);
  }
}

/**
 * The licenses of what the copied files hold: the packages themselves and everything they
 * depend on (GraphiQL's bundle holds its dependencies and graphql), each with its license
 * file as shipped.
 */
function notices(packages, what) {
  const seen = new Map();
  const visit = (name, from) => {
    let folder;
    try {
      folder = packageFolder(name, from);
    } catch {
      return; // an optional dependency for another platform
    }
    if (seen.has(folder)) return;
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    seen.set(folder, manifest);
    const optionalPeers = manifest.peerDependenciesMeta ?? {};
    for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency, folder);
    for (const peer of Object.keys(manifest.peerDependencies ?? {})) if (!optionalPeers[peer]?.optional) visit(peer, folder);
  };
  for (const name of packages) visit(name, root);
  const entries = [...seen].map(([folder, manifest]) => {
    const file = readdirSync(folder).find((entry) => /^(licen[cs]e|copying)(\.|$)/i.test(entry));
    const text = file ? readFileSync(join(folder, file), 'utf8').trim() : `(${manifest.name} ships no license file; its package.json says: ${manifest.license ?? 'nothing'})`;
    return `${manifest.name}@${manifest.version} (${manifest.license ?? 'no license field'})\n\n${text}\n`;
  });
  entries.sort();
  const header = `The files beside this one are copied unchanged from the npm packages ${packages.join(', ')}; the reactor serves them for its ${what}. They and what they bundle are licensed as follows.\n`;
  return [header, ...entries].join(`\n${'-'.repeat(78)}\n\n`);
}
