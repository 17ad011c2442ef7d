import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StaticFile } from '../../application/serving/served-package.js';
import { graphiqlAsset, type GraphiqlAsset } from './graphql/graphiql-asset-list.js';
import { apiDocsAsset } from './openapi/api-docs-asset-list.js';

/** A set of browser files the reactor serves itself: the folder the build copies them into, below dist/, and how a served name finds its file. */
export interface AssetSet {
  folder: string;
  find(name: string): GraphiqlAsset | undefined;
}

export const GRAPHIQL_SET: AssetSet = { folder: 'graphiql', find: graphiqlAsset };
export const API_DOCS_SET: AssetSet = { folder: 'api-docs', find: apiDocsAsset };

/**
 * Browser files of pinned npm packages (GraphiQL's, the API page's) as the reactor serves
 * them: each read on its first request and then kept in memory with its strong ETag. They
 * come from `dist/<folder>/`, where the build copies them (beside the bundle: `./<folder>/`
 * from dist/pkg.js, `../<folder>/` from a chunk); from the source tree (tests), from the
 * pinned packages in node_modules.
 */
export class BundledAssets {
  private readonly files = new Map<string, Promise<StaticFile>>();

  constructor(
    private readonly cacheControl: string,
    private readonly set: AssetSet = GRAPHIQL_SET,
    private readonly read: (asset: GraphiqlAsset) => Promise<Uint8Array> = (asset) => readAsset(set.folder, asset),
  ) {}

  /** The file served as `name`, or undefined for a name that is not in the set. */
  file(name: string): Promise<StaticFile> | undefined {
    const asset = this.set.find(name);
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

async function readAsset(folderName: string, asset: GraphiqlAsset): Promise<Uint8Array> {
  for (const folder of [`./${folderName}/`, `../${folderName}/`]) {
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
    throw new Error(`${asset.name} is neither built (npm run build copies it below dist/) nor installed (${asset.package}@${asset.version})`);
  }
  const { version } = JSON.parse(await readFile(manifestPath, 'utf8')) as { version?: string };
  if (version !== asset.version) throw new Error(`${asset.name} needs ${asset.package}@${asset.version}; node_modules holds ${version}: run npm install`);
  return readFile(join(dirname(manifestPath), asset.file));
}
