// Only type imports here: scripts/bundle.js reads this list too, to copy the files into dist/api-docs/.
import type { GraphiqlAsset } from '../graphql/graphiql-asset-list.js';

/**
 * Swagger UI's prebuilt browser bundle and styles, which show a mount's OpenAPI description
 * at `<mount>/api/v1/`. Served by the reactor at `API_DOCS_ASSETS_PATH` + `name`; the
 * version in the name keeps a cached copy from outliving an upgrade.
 */
export const API_DOCS_ASSETS = {
  bundle: { name: 'swagger-ui-5.35.0-bundle.js', package: 'swagger-ui-dist', version: '5.35.0', file: 'swagger-ui-bundle.js', contentType: 'text/javascript; charset=utf-8' },
  css: { name: 'swagger-ui-5.35.0.css', package: 'swagger-ui-dist', version: '5.35.0', file: 'swagger-ui.css', contentType: 'text/css; charset=utf-8' },
} as const satisfies Record<string, GraphiqlAsset>;

/** The assets by served name. */
export function apiDocsAsset(name: string): GraphiqlAsset | undefined {
  return Object.values(API_DOCS_ASSETS).find((asset) => asset.name === name);
}
