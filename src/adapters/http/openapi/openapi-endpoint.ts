import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Mount } from '../../../application/serving/reactor.js';
import { methodNotAllowed, sendProblem } from '../http-problems.js';
import { openApiDocument } from './openapi-document.js';

/**
 * `<mount>/api/v1/openapi.json`: the mount's data API in OpenAPI 3.1, built from what is
 * mounted now (a reload under `--watch` changes it with the datasets).
 */
export function answerOpenApi(mount: Mount, request: IncomingMessage, response: ServerResponse): void {
  if (request.method !== 'GET' && request.method !== 'HEAD') return sendProblem(response, methodNotAllowed('GET, HEAD'));
  const body = JSON.stringify(openApiDocument(mount), null, 2);
  response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-cache' });
  response.end(request.method === 'HEAD' ? undefined : body);
}
