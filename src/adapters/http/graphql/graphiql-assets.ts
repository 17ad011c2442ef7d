import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StaticFile } from '../../../application/serving/served-package.js';
import { graphiqlAsset, type GraphiqlAsset } from './graphiql-asset-list.js';

/**
 * GraphiQL's files as the reactor serves them: each read on its first request and then
 * kept in memory with its strong ETag. They come from `dist/graphiql/`, where the build
 * copies them (beside the bundle: `./graphiql/` from dist/pkg.js, `../graphiql/` from a
 * chunk); from the source tree (tests), from the pinned packages in node_modules.
 */
export class GraphiqlAssets {
  private readonly files = new Map<string, Promise<StaticFile>>();

  constructor(
    private readonly cacheControl: string,
    private readonly read: (asset: GraphiqlAsset) => Promise<Uint8Array> = readAsset,
  ) {}

  /** The file served as `name`, or undefined for a name that is not GraphiQL's. */
  file(name: string): Promise<StaticFile> | undefined {
    const asset = graphiqlAsset(name);
    if (!asset) return undefined;
    let file = this.files.get(name);
    if (!file) {
      file = this.read(asset).then((body) => staticFile(asset, body, this.cacheControl));
      // A failed read is not kept: the next request tries again.
      file.catch(() => this.files.delete(name));
      this.files.set(name, file);
    }
    return file;
  }
}

function staticFile(asset: GraphiqlAsset, body: Uint8Array, cacheControl: string): StaticFile {
  return {
    contentType: asset.contentType,
    etag: `"${createHash('sha256').update(body).digest('hex')}"`,
    size: body.byteLength,
    cacheControl,
    body,
    stream: async function* (start, end) {
      yield body.subarray(start, end + 1);
    },
  };
}

async function readAsset(asset: GraphiqlAsset): Promise<Uint8Array> {
  for (const folder of ['./graphiql/', '../graphiql/']) {
    try {
      return await readFile(fileURLToPath(new URL(folder + asset.name, import.meta.url)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return readFromPackage(asset);
}

/** Not built: the file in its package, which must be the pinned version. */
async function readFromPackage(asset: GraphiqlAsset): Promise<Uint8Array> {
  let manifestPath: string;
  try {
    manifestPath = createRequire(import.meta.url).resolve(`${asset.package}/package.json`);
  } catch {
    throw new Error(`GraphiQL's ${asset.name} is neither built (npm run build copies it into dist/graphiql/) nor installed (${asset.package}@${asset.version})`);
  }
  const { version } = JSON.parse(await readFile(manifestPath, 'utf8')) as { version?: string };
  if (version !== asset.version) throw new Error(`GraphiQL's ${asset.name} needs ${asset.package}@${asset.version}; node_modules holds ${version}: run npm install`);
  return readFile(join(dirname(manifestPath), asset.file));
}
