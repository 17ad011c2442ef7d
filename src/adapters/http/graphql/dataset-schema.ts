import {
  GraphQLError,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLBoolean,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  Kind,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type ValueNode,
} from 'graphql';
import type { Dataset, StoredItem } from '../../../application/data/dataset.js';
import type { PackageDatasets } from '../../../application/data/package-datasets.js';
import { PackageError, SchemaViolationError } from '../../../domain/errors.js';
import { isRecord } from '../../../domain/package/documents.js';
import type { DataSet } from '../../../domain/package/storage.js';
import { graphqlDatasets } from './graphql-datasets.js';
import type { ValueBudget } from './value-budget.js';

/** Any JSON value, in and out: the type of items without a usable schema and of `item` arguments. */
export const GraphQLJSON = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node, variables) => literalValue(node, variables ?? undefined),
});

function literalValue(node: ValueNode, variables: Record<string, unknown> | undefined): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.ENUM:
      return node.value;
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map((value) => literalValue(value, variables));
    case Kind.OBJECT:
      // fromEntries defines own properties, so a `__proto__` key stays data, never a prototype.
      return Object.fromEntries(node.fields.map((field) => [field.name.value, literalValue(field.value, variables)]));
    case Kind.VARIABLE:
      return variables?.[node.name.value];
  }
}

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
/** Fields every item type has; schema properties of these names are not typed again. */
const ITEM_FIELDS = new Set(['id', '_json']);

/**
 * The GraphQL schema of a package's datasets (SPEC.md endpoint rule 10): one list field
 * and three mutations per collection dataset, one field per document dataset. Resolvers
 * only call Dataset methods, so validation, id rules and persistence are the REST API's,
 * to the letter. Undefined when there is nothing to serve: no dataset outside SQLite.
 */
export function buildDatasetSchema(datasets: PackageDatasets, dataSets: Record<string, DataSet>): GraphQLSchema | undefined {
  return datasetSchemas(datasets, dataSets)?.whole;
}

/** The schema of every dataset GraphQL serves, and that of any part of them. */
export interface DatasetSchemas {
  /** The datasets served, in order. */
  ids: readonly string[];
  whole: GraphQLSchema;
  /**
   * The schema of the datasets `readable` names, for a requester who may read only those:
   * the others' fields and the types only they use are in it nowhere (introspection,
   * validation, its suggestions). Fields and types keep the names the whole schema gives
   * them, so a query means the same thing to every requester it is valid for.
   */
  part(readable: ReadonlySet<string>): GraphQLSchema;
}

/** As buildDatasetSchema, with the means to leave datasets out. */
export function datasetSchemas(datasets: PackageDatasets, dataSets: Record<string, DataSet>): DatasetSchemas | undefined {
  const served = graphqlDatasets(datasets, dataSets);
  if (served.length === 0) return undefined;
  const fields = new Map<string, { queries: GraphQLFieldConfigMap<unknown, unknown>; mutations: GraphQLFieldConfigMap<unknown, unknown> }>();
  const names = new NameAllocator();
  const types = new TypeNames();
  for (const dataset of served) {
    const queries: GraphQLFieldConfigMap<unknown, unknown> = {};
    const mutations: GraphQLFieldConfigMap<unknown, unknown> = {};
    fields.set(dataset.id, { queries, mutations });
    const { field, pascal } = names.allocate(dataset.id);
    if (!dataset.isCollection) {
      // One document, read whole: typed from its schema where the schema describes it.
      const schema = dataset.schema?.raw;
      // A document never changes (it takes no writes): its lists' lengths are counted once, for the cost of a query.
      const rows = Math.max(arrayElements(dataset.document()), 1);
      queries[field] = {
        type: schema === undefined ? GraphQLJSON : outputTypeOf(schema, schema, `${pascal}Document`, types),
        description: `Dataset ${dataset.id}: one document, read whole.`,
        extensions: { complexity: ({ childComplexity }: { childComplexity: number }) => rows * Math.max(childComplexity, 1) },
        resolve: guard(dataset.id, () => dataset.document()),
      };
      continue;
    }
    const itemType = itemTypeOf(dataset, `${pascal}Item`, types);
    const fieldsOf = itemType ? typedFields(dataset, itemType) : jsonFields(dataset);
    queries[field] = fieldsOf.list;
    mutations[`create${pascal}`] = fieldsOf.create;
    mutations[`update${pascal}`] = fieldsOf.update;
    mutations[`delete${pascal}`] = {
      type: GraphQLID,
      description: `Deletes an item of dataset ${dataset.id}; answers its id.`,
      args: { id: { type: new GraphQLNonNull(GraphQLID) } },
      resolve: guard(dataset.id, async (_root, { id }: { id: string }) => {
        await dataset.remove(id);
        return id;
      }),
    };
  }
  const schemaOf = (ids: Iterable<string>): GraphQLSchema => {
    const queries: GraphQLFieldConfigMap<unknown, unknown> = {};
    const mutations: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const id of ids) {
      const own = fields.get(id);
      if (!own) continue;
      Object.assign(queries, own.queries);
      Object.assign(mutations, own.mutations);
    }
    return new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: queries }),
      ...(Object.keys(mutations).length > 0 ? { mutation: new GraphQLObjectType({ name: 'Mutation', fields: mutations }) } : {}),
    });
  };
  const ids = served.map((dataset) => dataset.id);
  return { ids, whole: schemaOf(ids), part: (readable) => schemaOf(ids.filter((id) => readable.has(id))) };
}

interface DatasetFields {
  list: GraphQLFieldConfig<unknown, unknown>;
  create: GraphQLFieldConfig<unknown, unknown>;
  update: GraphQLFieldConfig<unknown, unknown>;
}

interface ListArgs {
  id?: string | null;
  limit?: number | null;
  offset?: number | null;
  filter?: unknown;
  q?: string | null;
  sort?: string | null;
}

const listArgs = {
  id: { type: GraphQLID },
  limit: { type: GraphQLInt },
  offset: { type: GraphQLInt },
  filter: { type: GraphQLJSON },
  q: { type: GraphQLString },
  sort: { type: GraphQLString },
};
const itemArg = { item: { type: new GraphQLNonNull(GraphQLJSON) } };
const updateArgs = { id: { type: new GraphQLNonNull(GraphQLID) }, ...itemArg };

/** Items with a schema resolve as `{id, item}` pairs, so `id` is the stored id even when the item holds none. */
function typedFields(dataset: Dataset, itemType: GraphQLObjectType): DatasetFields {
  return {
    list: {
      type: new GraphQLList(new GraphQLNonNull(itemType)),
      description: listDescription(dataset),
      args: listArgs,
      extensions: { complexity: listCost(dataset) },
      resolve: guard(dataset.id, (_root, args: ListArgs) => listed(dataset, args)),
    },
    create: {
      type: itemType,
      description: `Creates an item of dataset ${dataset.id}, as POST /api/v1/data/${dataset.id} does.`,
      args: itemArg,
      resolve: guard(dataset.id, (_root, { item }: { item: unknown }) => dataset.create(item)),
    },
    update: {
      type: itemType,
      description: `Replaces an item of dataset ${dataset.id}, as PUT /api/v1/data/${dataset.id}/<id> does.`,
      args: updateArgs,
      resolve: guard(dataset.id, (_root, { id, item }: { id: string; item: unknown }) => dataset.replace(id, item)),
    },
  };
}

function jsonFields(dataset: Dataset): DatasetFields {
  return {
    list: {
      type: new GraphQLList(new GraphQLNonNull(GraphQLJSON)),
      description: listDescription(dataset),
      args: listArgs,
      extensions: { complexity: listCost(dataset) },
      resolve: guard(dataset.id, (_root, args: ListArgs) => listed(dataset, args).map((entry) => entry.item)),
    },
    create: {
      type: GraphQLJSON,
      description: `Creates an item of dataset ${dataset.id}; answers the stored item.`,
      args: itemArg,
      resolve: guard(dataset.id, async (_root, { item }: { item: unknown }) => (await dataset.create(item)).item),
    },
    update: {
      type: GraphQLJSON,
      description: `Replaces an item of dataset ${dataset.id}; answers the stored item.`,
      args: updateArgs,
      resolve: guard(dataset.id, async (_root, { id, item }: { id: string; item: unknown }) => (await dataset.replace(id, item)).item),
    },
  };
}

/** How many list elements a document holds, all the way down: what a query over it may produce, at most, per field. */
function arrayElements(value: unknown): number {
  let count = 0;
  const stack = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (Array.isArray(current)) {
      count += current.length;
      stack.push(...current);
    } else if (isRecord(current)) stack.push(...Object.values(current));
  }
  return count;
}

/**
 * A list field costs its rows (as many as `id`, `limit` and `offset` leave, from the dataset's size now) times what each row asks for,
 * and, when it filters, searches or sorts, the scan of every item that takes (`scanCost`).
 */
function listCost(dataset: Dataset): (options: { args: ListArgs; childComplexity: number }) => number {
  return ({ args, childComplexity }) => {
    const size = dataset.size;
    const start = Math.max(args.offset ?? 0, 0);
    const byId = args.id !== undefined && args.id !== null;
    const rows = byId ? 1 : Math.max(Math.min(args.limit ?? size, size - start), 0);
    return rows * Math.max(childComplexity, 1) + (byId ? 0 : scanCost(size, queryTerms(args)));
  };
}

/** Items one result value's time scans: an item weighed against a filter, search or sort costs about a 25th of serving a value, and each term of it a 15th of that again. */
const SCANNED_PER_VALUE = 25;
const TERMS_PER_ITEM_VISIT = 15;

/**
 * What weighing every item against a query's terms costs, in result values: twenty aliases
 * each filtering 40,000 items by 100 values returned nothing and held the event loop 2 s.
 */
function scanCost(size: number, terms: number): number {
  return terms === 0 ? 0 : Math.ceil((size * (TERMS_PER_ITEM_VISIT + terms)) / (SCANNED_PER_VALUE * TERMS_PER_ITEM_VISIT));
}

/** The filter values, search and sort keys a list field's arguments hold (what the collection query weighs against every item). */
function queryTerms({ filter, q, sort }: ListArgs): number {
  let terms = typeof q === 'string' ? 1 : 0;
  if (typeof sort === 'string') terms += sort.split(',').length;
  if (isRecord(filter)) for (const value of Object.values(filter)) terms += Array.isArray(value) ? value.length : 1;
  return terms;
}

function listDescription(dataset: Dataset): string {
  return `Items of dataset ${dataset.id}, in collection order. With \`id\`, that item alone, or an ITEM_NOT_FOUND error. \`filter\` takes the REST API's field filters as an object (\`{active: true, age_gte: 30, name: ["Ann", "Bob"]}\`, a list matching any of its values), \`q\` text any text field contains, \`sort\` fields in turn (\`"-score,name"\`, \`-\` descending); \`limit\` and \`offset\` apply after them.`;
}

function listed(dataset: Dataset, { id, limit, offset, filter, q, sort }: ListArgs): StoredItem[] {
  if (id !== undefined && id !== null) return [{ id, item: dataset.item(id) }];
  const start = pageNumber(offset, 'offset') ?? 0;
  const count = pageNumber(limit, 'limit');
  // The same query as the REST API's, so both refuse and select alike.
  const parameters = filterParameters(filter);
  if (q !== undefined && q !== null) parameters.push(['q', q]);
  if (sort !== undefined && sort !== null) parameters.push(['sort', sort]);
  const entries = parameters.length > 0 ? dataset.select(parameters) : dataset.entries();
  return (count === undefined ? entries.slice(start) : entries.slice(start, start + count)).map(([entryId, item]) => ({ id: entryId, item }));
}

/** `{"age_gte": 30, "name": ["Ann", "Bob"]}` as the URL parameters the REST API reads. */
function filterParameters(filter: unknown): Array<[string, string]> {
  if (filter === undefined || filter === null) return [];
  if (!isRecord(filter)) throw new GraphQLError('filter must be an object of field names and values', { extensions: { code: 'BAD_QUERY' } });
  const parameters: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(filter))
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one !== null && typeof one === 'object') throw new GraphQLError(`filter ${name} takes a text, number, boolean or null, or a list of them`, { extensions: { code: 'BAD_QUERY' } });
      if (['q', 'sort', 'limit', 'offset', 'page', 'per_page', 'at'].includes(name)) throw new GraphQLError(`filter names fields; ${name} is an argument of its own or not one here`, { extensions: { code: 'BAD_QUERY' } });
      parameters.push([name, String(one)]);
    }
  return parameters;
}

function pageNumber(value: number | null | undefined, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  // The same code as the REST API's ?limit=&offset= check.
  if (value < 0) throw new GraphQLError(`${name} must be a non-negative integer`, { extensions: { code: 'BAD_QUERY' } });
  return value;
}

/** An object type when the schema describes items as objects with properties; otherwise the JSON scalar serves. */
function itemTypeOf(dataset: Dataset, name: string, types: TypeNames): GraphQLObjectType | undefined {
  const raw = dataset.schema?.raw;
  const resolved = resolveRef(raw, raw);
  if (!isRecord(resolved) || !typesOf(resolved).includes('object') || !isRecord(resolved.properties)) return undefined;
  const properties = resolved.properties;
  return new GraphQLObjectType<StoredItem>({
    name: types.take(name),
    description: `An item of dataset ${dataset.id}.`,
    fields: () => {
      const fields: GraphQLFieldConfigMap<StoredItem, unknown> = {
        id: { type: new GraphQLNonNull(GraphQLID), description: 'The stored id: the `id` field, or the 1-based position for base items without one.', resolve: (entry) => entry.id },
      };
      for (const [property, schema] of Object.entries(properties)) {
        if (!GRAPHQL_NAME.test(property) || property.startsWith('__') || ITEM_FIELDS.has(property)) continue;
        fields[property] = { type: outputTypeOf(schema, raw, `${name}${pascalOf(property)}`, types), resolve: (entry, _args, context) => counted(context, isRecord(entry.item) && Object.hasOwn(entry.item, property) ? entry.item[property] : null) };
      }
      fields._json = { type: GraphQLJSON, description: 'The whole stored item, including what the typed fields cannot show.', resolve: (entry) => entry.item };
      return fields;
    },
  });
}

/**
 * The GraphQL type of a value a schema describes: scalars for string, number, integer
 * and boolean; an object type for an object with properties (nested ones too, each named
 * after its path); a list for an array of any of these; the JSON scalar for the rest.
 * `root` holds the definitions a local `$ref` points into.
 */
function outputTypeOf(schema: unknown, root: unknown, name: string, types: TypeNames): GraphQLOutputType {
  const resolved = resolveRef(schema, root);
  const scalar = scalarTypeOf(resolved);
  if (scalar) return scalar;
  if (!isRecord(resolved)) return GraphQLJSON;
  const sole = soleType(resolved) ?? (isRecord(resolved.properties) ? 'object' : undefined);
  if (sole === 'array') {
    const items = resolved.items;
    // An array of itself (`items` referring back to it) is lists of lists without end: no GraphQL type holds it.
    if (items === undefined || Array.isArray(items) || types.arrays.has(resolved)) return GraphQLJSON;
    types.arrays.add(resolved);
    try {
      return new GraphQLList(outputTypeOf(items, root, name, types));
    } finally {
      types.arrays.delete(resolved);
    }
  }
  if (sole === 'object' && isRecord(resolved.properties)) {
    const known = types.objects.get(resolved);
    if (known) return known;
    const properties = Object.entries(resolved.properties).filter(([property]) => GRAPHQL_NAME.test(property) && !property.startsWith('__'));
    if (properties.length === 0) return GraphQLJSON;
    const type = new GraphQLObjectType<Record<string, unknown>>({
      name: types.take(name),
      fields: () =>
        Object.fromEntries(
          properties.map(([property, inner]) => [
            property,
            { type: outputTypeOf(inner, root, `${name}${pascalOf(property)}`, types), resolve: (value: unknown, _args: unknown, context: unknown) => counted(context, isRecord(value) && Object.hasOwn(value, property) ? value[property] : null) },
          ]),
        ),
    });
    types.objects.set(resolved, type);
    return type;
  }
  return GraphQLJSON;
}

/** A local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`) followed, a few steps at most; anything else as it is. */
function resolveRef(schema: unknown, root: unknown): unknown {
  let current = schema;
  for (let hops = 0; hops < 8 && isRecord(current) && typeof current.$ref === 'string'; hops++) {
    const ref = current.$ref;
    if (ref === '#') {
      current = root;
      continue;
    }
    if (!ref.startsWith('#/')) return current;
    let target: unknown = root;
    for (const part of ref.slice(2).split('/')) target = isRecord(target) ? target[decodeURIComponent(part.replace(/~1/g, '/').replace(/~0/g, '~'))] : undefined;
    current = target;
  }
  return current;
}

function scalarTypeOf(schema: unknown): GraphQLOutputType | undefined {
  if (!isRecord(schema)) return undefined;
  switch (soleType(schema)) {
    case 'string':
      return GraphQLString;
    case 'number':
      return GraphQLFloat;
    case 'boolean':
      return GraphQLBoolean;
    case 'integer':
      // GraphQL's Int is 32-bit: a schema whose bounds allow more gets Float, which holds every integer JSON carries.
      return beyondInt32(schema) ? GraphQLFloat : GraphQLInt;
    default:
      return undefined;
  }
}

function pascalOf(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** Type names are global to a schema: a name taken twice gets a numeric suffix. */
class TypeNames {
  private readonly taken = new Set<string>();
  /**
   * The object type made for each schema object: a schema that refers to itself (a tree's
   * `child: {$ref: "#/definitions/node"}`, `{$ref: "#"}`) gets one type that refers to
   * itself, where a new type per level would never end.
   */
  readonly objects = new Map<object, GraphQLObjectType>();
  /** The array schemas whose item type is being worked out: one met again inside itself holds only arrays, nested without end. */
  readonly arrays = new Set<object>();

  take(name: string): string {
    let candidate = name;
    for (let n = 2; this.taken.has(candidate); n++) candidate = `${name}${n}`;
    this.taken.add(candidate);
    return candidate;
  }
}

/** The one type a property declares, `null` aside (fields are nullable anyway); undefined for unions and none. */
function soleType(schema: Record<string, unknown>): string | undefined {
  if (schema.$ref !== undefined) return undefined;
  const types = typesOf(schema).filter((type) => type !== 'null');
  return types.length === 1 && typeof types[0] === 'string' ? types[0] : undefined;
}

function typesOf(schema: Record<string, unknown>): unknown[] {
  return ([] as unknown[]).concat(schema.type ?? []);
}

function beyondInt32(schema: Record<string, unknown>): boolean {
  const lower = bound(schema.minimum, schema.exclusiveMinimum, Math.max);
  const upper = bound(schema.maximum, schema.exclusiveMaximum, Math.min);
  return (lower !== undefined && lower < INT32.min) || (upper !== undefined && upper > INT32.max);
}

/** The tighter of an inclusive and a (draft-06+ numeric) exclusive bound; the boolean draft-04 form adds nothing. */
function bound(inclusive: unknown, exclusive: unknown, tighter: (a: number, b: number) => number): number | undefined {
  const values = [inclusive, exclusive].filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
  return values.length === 0 ? undefined : values.reduce(tighter);
}

/**
 * Dataset ids may hold `-`, GraphQL names may not; and `a-b` and `a_b` would meet as
 * one name. Later datasets whose names are taken get a numeric suffix, so every
 * dataset stays reachable and the names do not depend on anything but the ids' order.
 */
class NameAllocator {
  private readonly fields = new Set<string>();
  private readonly pascals = new Set<string>();

  allocate(id: string): { field: string; pascal: string } {
    let field = id.replace(/-/g, '_');
    if (field.startsWith('__')) field = `dataset${field}`;
    let pascal = id
      .split(/[-_]+/)
      .filter((part) => part !== '')
      .map((part) => part[0]!.toUpperCase() + part.slice(1))
      .join('');
    if (!/^[A-Za-z]/.test(pascal)) pascal = `Dataset${pascal}`;
    let candidate = { field, pascal };
    for (let n = 2; this.fields.has(candidate.field) || this.pascals.has(candidate.pascal); n++) candidate = { field: `${field}_${n}`, pascal: `${pascal}${n}` };
    this.fields.add(candidate.field);
    this.pascals.add(candidate.pascal);
    return candidate;
  }
}

/**
 * Typed errors reach the client with their stable code, as the REST API's JSON errors
 * carry it; anything else is a bug whose text could leak internals, so the client gets
 * a fixed message and the detail goes to stderr.
 */
export function toGraphqlError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  if (error instanceof PackageError) {
    const details = error instanceof SchemaViolationError ? { details: error.violations } : {};
    return new GraphQLError(error.message, { originalError: error, extensions: { code: error.code, ...details } });
  }
  process.stderr.write(`reactor: unexpected error in a GraphQL resolver: ${(error as Error)?.stack ?? String(error)}\n`);
  return new GraphQLError('internal error', { extensions: { code: 'INTERNAL' } });
}

/** What the HTTP endpoint hands every resolver: the access check of the request's identity, and what its answer may hold. */
// A type, not an interface: graphql-http takes a context that is a record.
export type GraphqlContext = {
  /** Throws UnauthenticatedError or ForbiddenError when the route access rules of the dataset refuse the request. */
  authorize?(datasetId: string): void;
  /** Counts the values of typed fields, whose lists the estimate before execution cannot measure. */
  values?: ValueBudget;
};

/** A typed field's value, or null once the answer is past its budget of values (the endpoint then refuses it). */
function counted(context: unknown, value: unknown): unknown {
  return (context as GraphqlContext | undefined)?.values?.spend(value) === false ? null : value;
}

function guard<Args>(datasetId: string, resolve: (root: unknown, args: Args) => unknown): GraphQLFieldResolver<unknown, unknown, Args> {
  return async (root, args, context) => {
    try {
      (context as GraphqlContext | undefined)?.authorize?.(datasetId);
      return await resolve(root, args);
    } catch (error) {
      throw toGraphqlError(error);
    }
  };
}
