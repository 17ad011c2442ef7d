import { isRecord } from '../../../domain/package/documents.js';
import { isFilterableField } from '../../../domain/data/collection-query.js';
import type { Dataset } from '../../../application/data/dataset.js';
import type { Mount } from '../../../application/serving/reactor.js';
import { addItemSchema } from './openapi-schemas.js';
import { datasetAccess, securitySchemes, type DatasetAccess } from './openapi-security.js';

type JsonObject = Record<string, unknown>;

const OPERATORS: Array<[string, string]> = [
  ['gte', 'at least'],
  ['lte', 'at most'],
  ['gt', 'above'],
  ['lt', 'below'],
  ['ne', 'not equal to'],
];

/**
 * The OpenAPI 3.1 description of a mount's data API, from its datasets and their JSON
 * schemas: collections with their queries, items, history, the errors with their codes and
 * the headers the API sends. Built from what is mounted, so it is true for this reactor;
 * of the datasets `readable` names (all without it): one the requester may not read is
 * described to them no more than it is served.
 */
export function openApiDocument(mount: Mount, readable?: ReadonlySet<string>): JsonObject {
  const { metadata } = mount.pkg.model;
  const paths: JsonObject = {};
  const schemas: JsonObject = { Error: ERROR_SCHEMA, ItemVersion: VERSION_SCHEMA };
  for (const dataset of mount.datasets.all()) {
    if (readable && !readable.has(dataset.id)) continue;
    Object.assign(paths, guarded(datasetPaths(dataset, schemas), datasetAccess(mount.auth, dataset.id)));
  }
  const securities = securitySchemes(mount.auth);
  return {
    openapi: '3.1.0',
    info: { title: `${metadata.name} data API`, version: metadata.version, description: metadata.description },
    servers: [{ url: mount.prefix === '/' ? '/' : mount.prefix.replace(/\/$/, '') }],
    paths,
    components: { schemas, ...(Object.keys(securities).length > 0 ? { securitySchemes: securities } : {}) },
  };
}

/** The paths of one dataset's API: its collection, items and their history, or the document of one that is no list. */
function datasetPaths(dataset: Dataset, schemas: JsonObject): Record<string, Record<string, JsonObject>> {
  const base = `/api/v1/data/${dataset.id}`;
  if (!dataset.isCollection) return { [base]: { get: operation(`The ${dataset.id} document, whole.`, [], { 200: json('The document.', {}) }) } };
  const item = addItemSchema(dataset, schemas);
  const writes = dataset.writable;
  const itemId = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: "The item's id: its `id` field, or its 1-based position in the package's data." };
  return {
    [base]: {
      get: operation(`Items of ${dataset.id}, filtered, sorted and paged as the query says.`, [...queryParameters(dataset), AT, IF_NONE_MATCH], {
        200: json('The items that match, in order: the page the window shows.', { type: 'array', items: item }, { ETag: ETAG, 'X-Total-Count': header('How many items matched, before the window.', 'integer'), Link: header('RFC 8288 links to the first, prev, next and last pages, when a window was asked for.') }),
        304: NOT_MODIFIED,
        400: problem('BAD_QUERY (an unreadable parameter) or UNKNOWN_FIELD (a field no item has).'),
      }),
      ...(writes ? { post: operation(`Creates an item of ${dataset.id}; without an id it gets the next free number.`, [], { 201: json('The stored item.', item, { Location: header('Where the item now is.') }), ...WRITE_REFUSED, ...BODY_ERRORS, 409: problem('DUPLICATE_ID: an item has that id.') }, item) } : {}),
    },
    [`${base}/{id}`]: {
      get: operation(`One item of ${dataset.id}.`, [itemId, AT, IF_NONE_MATCH], { 200: json('The item.', item, { ETag: ETAG }), 304: NOT_MODIFIED, 404: problem('ITEM_NOT_FOUND.') }),
      ...(writes
        ? {
            put: operation(`Replaces an item of ${dataset.id}.`, [itemId, IF_MATCH, WRITE_IF_NONE_MATCH], { 200: json('The stored item.', item, { ETag: ETAG }), ...WRITE_REFUSED, ...BODY_ERRORS, 404: problem('ITEM_NOT_FOUND.'), 409: problem('ID_MISMATCH: the body names another id than the path.'), 412: PRECONDITION_FAILED }, item),
            delete: operation(`Deletes an item of ${dataset.id}.`, [itemId, IF_MATCH, WRITE_IF_NONE_MATCH], { 204: { description: 'Deleted.' }, ...WRITE_REFUSED, 404: problem('ITEM_NOT_FOUND.'), 412: PRECONDITION_FAILED }),
          }
        : {}),
    },
    [`${base}/{id}/history`]: {
      get: operation(`Each version of an item of ${dataset.id}, oldest first: the package's own, then every write.`, [itemId, ...PAGING], {
        200: json('The versions, or the page of them asked for; X-Total-Count counts them all.', { type: 'object', required: ['dataset', 'id', 'versions'], properties: { dataset: { type: 'string' }, id: { type: 'string' }, versions: { type: 'array', items: { $ref: '#/components/schemas/ItemVersion' } } } }),
        400: problem('HISTORY_TOO_LARGE: the versions asked for take more than 32 MiB; ask for a page. BAD_QUERY: another parameter.'),
        404: problem('ITEM_NOT_FOUND: no item had that id.'),
      }),
    },
  };
}

/**
 * Each operation of a dataset's paths with what the auth gate asks of it: the ways to sign
 * in, 401 without an identity, 403 FORBIDDEN without one of the route's roles. A client
 * reading the document learns it needs credentials before its first request is refused.
 */
function guarded(paths: Record<string, Record<string, JsonObject>>, access: DatasetAccess): JsonObject {
  if (!access.identity) return paths;
  const forbidden = access.roles.length > 0 ? `FORBIDDEN: the identity holds none of the roles ${access.roles.join(', ')}.` : undefined;
  for (const item of Object.values(paths)) {
    for (const [method, op] of Object.entries(item)) {
      const responses = op.responses as JsonObject;
      const refused = responses[403] as { description: string } | undefined;
      item[method] = {
        ...op,
        ...(access.security.length > 0 ? { security: access.security } : {}),
        responses: { ...responses, 401: problem('UNAUTHENTICATED: the request carries no identity the mount accepts.'), ...(forbidden ? { 403: problem(refused ? `${forbidden} ${refused.description}` : forbidden) } : {}) },
      };
    }
  }
  return paths;
}

const AT = { name: 'at', in: 'query', required: false, schema: { type: 'string', format: 'date-time' }, description: 'An RFC 3339 time: the data as it stood then.' };

const ETAG = header('A strong tag of the body sent: the SHA-256 of its bytes, the same on every reactor and after a restart.');
const IF_NONE_MATCH = { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' }, description: 'Tags the client holds: 304 when one is current.' };
const IF_MATCH = { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' }, description: 'The write happens only if the item exists and its tag is listed (`*`: only if it exists); else 412.' };
const WRITE_IF_NONE_MATCH = { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' }, description: 'The write happens only if the item has none of the listed tags (`*`: only if it does not exist); else 412.' };
const NOT_MODIFIED = { description: 'The tag given in If-None-Match is current.', headers: { ETag: ETAG } };

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string', description: 'Stable: what went wrong, for programs.' }, message: { type: 'string' }, details: {} } } },
};

const VERSION_SCHEMA = {
  type: 'object',
  required: ['op', 'at'],
  properties: { op: { enum: ['base', 'create', 'replace', 'delete'] }, at: { type: ['string', 'null'], format: 'date-time', description: "The write's UTC time; null for the package's own item and for writes logged without one." }, item: { description: 'The item after this version; absent for a delete.' } },
};

const WRITE_REFUSED = { 403: problem('READ_ONLY, or CROSS_SITE_WRITE for a write from a page of another site.') };

/** What a write with an item in its body can meet, each under the status the server answers it with (http-problems.ts). */
const BODY_ERRORS = {
  400: problem('MALFORMED_JSON, or INVALID_ITEM (an array or scalar, or an id the API cannot carry).'),
  413: problem('BODY_TOO_LARGE.'),
  415: problem('UNSUPPORTED_MEDIA_TYPE: a Content-Encoding other than identity, gzip, deflate or br.'),
  422: problem('SCHEMA_VIOLATION: the item breaks the dataset\'s JSON schema; details lists every violation.'),
  507: problem('DATASET_FULL: the write would take the dataset past 128 MiB of JSON; nothing was written.'),
};

const PRECONDITION_FAILED = problem('PRECONDITION_FAILED: the item changed (or is gone) since the tag given in If-Match, or has a tag given in If-None-Match.');

function operation(summary: string, parameters: unknown[], responses: JsonObject, body?: unknown): JsonObject {
  return {
    summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body ? { requestBody: { required: true, content: { 'application/json': { schema: body } } } } : {}),
    responses,
  };
}

function json(description: string, schema: unknown, headers?: JsonObject): JsonObject {
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema } } };
}

function problem(description: string): JsonObject {
  return json(description, { $ref: '#/components/schemas/Error' });
}

function header(description: string, type = 'string'): JsonObject {
  return { description, schema: { type } };
}

/** A window of a list: a collection's items, an item's versions. */
const PAGING: JsonObject[] = [
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 0 } },
  { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0 } },
  { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 }, description: 'With per_page, instead of limit and offset.' },
  { name: 'per_page', in: 'query', schema: { type: 'integer', minimum: 1, default: 10 } },
];

/** The query forms of a collection: the answer's shape, then a filter per field the schema declares. */
function queryParameters(dataset: Dataset): JsonObject[] {
  const parameters: JsonObject[] = [
    { name: 'q', in: 'query', schema: { type: 'string' }, description: 'Items with a text field, at any depth, that contains this, case-insensitively.' },
    { name: 'sort', in: 'query', schema: { type: 'string' }, description: 'Fields to sort by in turn, `-` before one for descending (`-score,name`); stable.' },
    ...PAGING,
  ];
  const properties = isRecord(dataset.schema?.raw) && isRecord(dataset.schema.raw.properties) ? dataset.schema.raw.properties : {};
  for (const [field, declared] of Object.entries(properties)) {
    // A field named `page`, `price_gte` or `a.b` cannot be asked for by its name: no parameter of its own.
    if (!isFilterableField(field)) continue;
    const type = isRecord(declared) ? scalarType(declared.type) : undefined;
    if (!type) continue;
    parameters.push({ name: field, in: 'query', schema: { type }, description: `Items whose ${field} is this; repeat for any of several values.` });
    if (type !== 'boolean') for (const [suffix, meaning] of OPERATORS) parameters.push({ name: `${field}_${suffix}`, in: 'query', schema: { type }, description: `Items whose ${field} is ${meaning} this.` });
    if (type === 'string') parameters.push({ name: `${field}_like`, in: 'query', schema: { type: 'string' }, description: `Items whose ${field} contains this, case-insensitively.` });
  }
  return parameters;
}

function scalarType(type: unknown): string | undefined {
  const types = ([] as unknown[]).concat(type ?? []).filter((one) => one !== 'null');
  return types.length === 1 && ['string', 'number', 'integer', 'boolean'].includes(types[0] as string) ? (types[0] as string) : undefined;
}
