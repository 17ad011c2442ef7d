import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler } from 'express';
import type { ExecutionResult, GraphQLSchema } from 'graphql';
import { createHandler, type ResponseInit } from 'graphql-http';
import { HttpProblem, methodNotAllowed, sendProblem } from '../http-problems.js';
import { jsonOf, readBody } from '../request-body.js';
import { MalformedJsonError } from '../../../domain/errors.js';
import { GRAPHIQL_PAGE, GRAPHIQL_PAGE_CSP } from './graphiql-page.js';
import { MAX_RESULT_VALUES, nestsTooDeep, parseBounded, queryLimitRules, refusedResult } from './query-limits.js';
import { ValueBudget } from './value-budget.js';
import type { GraphqlContext } from './dataset-schema.js';
import { DEFAULT_BODY_LIMIT } from '../../../application/serving/reactor.js';
import { addedVary } from '../vary.js';
import { splitTarget } from '../request-query.js';
import type { DatasetView } from '../../../application/auth/dataset-access.js';

export interface GraphqlEndpointOptions {
  /** Largest JSON body accepted, in bytes or as `'1mb'`; larger ones answer 413 before anything is parsed. */
  bodyLimit?: number;
  /** The dataset access check for a request; absent where no route restricts a dataset. */
  authorize?: (request: IncomingMessage, datasetId: string) => void;
  /** Which of the datasets (`ids`) the request may read, and so sees in the schema; absent where no route restricts a dataset. */
  view?: (request: IncomingMessage, ids: readonly string[]) => DatasetView;
}

const ALLOWED = 'GET, HEAD, POST';
const GRAPHIQL_BYTES = Buffer.from(GRAPHIQL_PAGE);

/**
 * `<mount>/graphql`: GraphQL over HTTP (graphql-http) for POST with a JSON body and
 * GET with `?query=`, and GraphiQL for a browser's GET (its scripts and styles from the
 * reactor, `GRAPHIQL_ASSETS_PATH`; its Content-Security-Policy lets nothing else load). graphql-http refuses
 * mutations over GET; that stays, so a link or a crawler never writes.
 */
export function createGraphqlEndpoint(schema: GraphQLSchema | ((request: IncomingMessage) => GraphQLSchema), options: GraphqlEndpointOptions = {}): RequestHandler {
  // graphql-http reads an unparsed body whole and without a limit; parsing it first bounds it,
  // and its failures then take the project's error body (400 or 413) instead of reaching graphql-http.
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const { authorize } = options;
  const handle = createHandler<IncomingMessage, undefined, GraphqlContext>({
    schema: typeof schema === 'function' ? (request) => schema(request.raw) : schema,
    parse: parseBounded,
    validationRules: (_request, args, specified) => [...specified, ...queryLimitRules(args.variableValues ?? undefined, args.operationName ?? undefined)],
    // graphql-http answers a list of errors as it answers a query refused in validation (400
    // for application/graphql-response+json); its type names only a result to put in its place.
    onOperation: (_request, args, result) => refusedResult(args, result, args.contextValue!.values!) as ExecutionResult | undefined,
    context: (request): GraphqlContext => ({ values: new ValueBudget(MAX_RESULT_VALUES), ...(authorize ? { authorize: (datasetId: string) => authorize(request.raw, datasetId) } : {}) }),
  });
  return (request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'POST') return sendProblem(response, methodNotAllowed(ALLOWED));
    // RFC 9110 §9.3.2: a HEAD is answered as its GET would be, without the body (node sends none for a HEAD).
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    // One URL answers HTML or JSON by Accept; caches must keep them apart, and data changes.
    response.setHeader('Vary', addedVary(response, 'Accept'));
    response.setHeader('Cache-Control', 'no-store');
    if (method === 'GET' && prefersHtml(request)) {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': GRAPHIQL_BYTES.length, 'Content-Security-Policy': GRAPHIQL_PAGE_CSP });
      response.end(request.method === 'HEAD' ? undefined : GRAPHIQL_BYTES);
      return;
    }
    if (request.method === 'POST' && !request.is('application/json')) return sendProblem(response, new HttpProblem(415, 'UNSUPPORTED_MEDIA_TYPE', 'a GraphQL request body must be application/json'));
    // graphql-http leaves some of its answers (a mutation over GET) without a type.
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    const parsed = request.method === 'POST' ? readBody(request, limit).then(jsonBody) : Promise.resolve(undefined);
    parsed.then((body) => {
      if (body !== undefined) request.body = body;
      const query = body !== undefined ? (body as { query?: unknown }).query : queryParameter(request.url);
      if (typeof query === 'string' && nestsTooDeep(query)) {
        response.status(400).end(JSON.stringify({ errors: [{ message: 'the query nests its braces too deep to parse', extensions: { code: 'QUERY_TOO_DEEP' } }] }));
        return;
      }
      // graphql-http answers its own failures; this only guards against a rejection escaping it.
      handle({ url: request.url, method, headers: request.headers, body: () => request.body as Record<string, unknown>, raw: request, context: undefined }).then(
        ([answer, init]) => (answer === null && init.status >= 400 ? sendProblem(response, bodilessRefusal(init)) : response.writeHead(init.status, init.statusText, init.headers).end(answer)),
        (failure: unknown) => sendProblem(response, failure),
      );
    }, (error: unknown) => sendProblem(response, error));
  };
}

/** graphql-http's refusals that come without a body (what the request accepts, or sends, is not JSON in UTF-8), in the project's error body. */
function bodilessRefusal(init: ResponseInit): HttpProblem {
  if (init.status === 406) return new HttpProblem(406, 'NOT_ACCEPTABLE', 'GraphQL answers are application/graphql-response+json or application/json in UTF-8, and the request accepts neither', undefined, { Accept: 'application/graphql-response+json; charset=utf-8, application/json; charset=utf-8' });
  if (init.status === 415) return new HttpProblem(415, 'UNSUPPORTED_MEDIA_TYPE', 'a GraphQL request body must be application/json in UTF-8');
  return new HttpProblem(init.status, 'BAD_REQUEST', init.statusText ?? 'the GraphQL request was refused');
}

/**
 * A GraphQL request body as JSON: an object (an array too, which graphql-http refuses in its
 * own words), as express's JSON parser takes only those; an empty body is `{}`, and
 * graphql-http then asks for a query. Anything else is refused here: graphql-http, handed a
 * body that is not an object, would wait to read the request again, which never ends.
 */
function jsonBody(bytes: Buffer): object {
  if (bytes.length === 0) return {};
  const value = jsonOf(bytes);
  if (typeof value !== 'object' || value === null) throw new MalformedJsonError('a GraphQL request body is a JSON object with a query');
  return value;
}

/** A GET's query as graphql-http reads it, the first of its `query` parameters (express would make two of them a list, which the depth check passed over). */
function queryParameter(url: string): string | null {
  return splitTarget(url).query.get('query');
}

function prefersHtml(request: Request): boolean {
  // At equal weight the JSON types come first, so `*/*` and a missing Accept get JSON.
  return request.accepts(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html';
}
