import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Mount } from '../../../application/serving/reactor.js';
import { refusedUnlessRead } from '../http-problems.js';
import { openApiDocument } from './openapi-document.js';
import { API_DOCS_PAGE, API_DOCS_PAGE_CSP } from './api-docs-page.js';

/**
 * `<mount>/api/v1/openapi.json`: the mount's data API in OpenAPI 3.1, built from what is
 * mounted now (a reload under `--watch` changes it with the datasets); `<mount>/api/v1/`:
 * the page that shows it.
 */
export function answerOpenApi(mount: Mount, page: boolean, request: IncomingMessage, response: ServerResponse): void {
  if (refusedUnlessRead(request, response)) return;
  const body = page ? API_DOCS_PAGE : JSON.stringify(openApiDocument(mount), null, 2);
  const type = page ? { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': API_DOCS_PAGE_CSP } : { 'Content-Type': 'application/json; charset=utf-8' };
  response.writeHead(200, { ...type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-cache' });
  response.end(request.method === 'HEAD' ? undefined : body);
}
