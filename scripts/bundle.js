// Bundles the CLI into one file: loading ~100 ES modules and their dependencies one by
// one cost 0.33 s per start; as one file it costs about half. (tsc type-checks first.)
// What a command needs only sometimes (express, ajv, GraphQL, openpgp) is imported
// dynamically, so it lands in a chunk that a start without it never compiles.
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';

const dist = new URL('../dist/', import.meta.url).pathname;
// Chunk names carry a hash and entries come and go: clear dist/ so it holds exactly this build.
rmSync(dist, { recursive: true, force: true });
await build({
  // The child process that re-verifies packages off the event loop is an entry of its own,
  // beside pkg.js, where ProcessVerifier looks for it.
  entryPoints: {
    pkg: new URL('../src/composition/cli-main.ts', import.meta.url).pathname,
    'verify-process': new URL('../src/composition/workers/verify-process.ts', import.meta.url).pathname,
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
  external: ['sql.js', 'css-tree'],
  // CommonJS dependencies bundled into ESM still call require().
  banner: { js: "import { createRequire as __pkgCreateRequire } from 'node:module'; const require = __pkgCreateRequire(import.meta.url);" },
});
chmodSync(`${dist}pkg.js`, 0o755);
