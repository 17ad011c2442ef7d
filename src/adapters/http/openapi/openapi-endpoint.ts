import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Mount } from '../../../application/serving/reactor.js';
import { WHOLE_VIEW_KEY, type DatasetView } from '../../../application/auth/dataset-access.js';
import { ViewCache } from '../view-cache.js';
import { refusedUnlessRead } from '../http-problems.js';
import { openApiDocument } from './openapi-document.js';
import { API_DOCS_PAGE, API_DOCS_PAGE_CSP } from './api-docs-page.js';

/** Each mount's description, per view of its datasets, as JSON text. */
const documents = new WeakMap<Mount, ViewCache<string>>();

/**
 * `<mount>/api/v1/openapi.json`: the mount's data API in OpenAPI 3.1, built from what is
 * mounted now (a reload under `--watch` changes it with the datasets), of the datasets the
 * requester may read (`view`; all without one); `<mount>/api/v1/`: the page that shows it.
 */
export function answerOpenApi(mount: Mount, page: boolean, request: IncomingMessage, response: ServerResponse, view?: DatasetView): void {
  if (refusedUnlessRead(request, response)) return;
  const body = page ? API_DOCS_PAGE : documentFor(mount, view);
  const type = page ? { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': API_DOCS_PAGE_CSP } : { 'Content-Type': 'application/json; charset=utf-8' };
  // A description that depends on who asks is no shared cache's to keep.
  response.writeHead(200, { ...type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': !page && mount.auth ? 'private, no-cache' : 'no-cache' });
  response.end(request.method === 'HEAD' ? undefined : body);
}

function documentFor(mount: Mount, view: DatasetView | undefined): string {
  let cache = documents.get(mount);
  if (!cache) documents.set(mount, (cache = new ViewCache()));
  // The datasets and the package they come from are replaced together on a reload.
  return cache.get(mount.datasets, view?.key ?? WHOLE_VIEW_KEY, () => JSON.stringify(openApiDocument(mount, view?.key === WHOLE_VIEW_KEY ? undefined : view?.readable), null, 2));
}
