import { DATA_KEYWORDS } from '../../domain/data/dataset-schema.js';

/** Where an applicator's subschemas are evaluated: the same value (`allOf`, `$ref`...), one of its members by the kind of key, or the properties whose names match a pattern. */
export type Step = { kind: 'here' } | { kind: 'member'; key: string } | { kind: 'pattern'; pattern: string };

/** A member key every member of an object (`*p`), of an array (`*i`), or every property name (`*n`) falls under. */
export const ANY_PROPERTY = '*p';
export const ANY_INDEX = '*i';
export const PROPERTY_NAMES = '*n';
/** The member key of `additionalProperties`: the properties its schema neither names in `properties` nor matches in `patternProperties`. */
export const OTHER_PROPERTY = '*a';
/** The member key of `additionalItems`: the items past those its schema lists in `items`. */
export const OTHER_INDEX = '*j';

/** One schema of a document and where each of its subschemas applies. A reference outside the document (a meta-schema ajv holds) is no edge. */
export interface SchemaNode {
  here: SchemaNode[];
  members: Map<string, SchemaNode[]>;
  /** `patternProperties`: the subschemas for the properties whose names match each pattern. */
  patterns: Map<string, SchemaNode[]>;
  /** Subschemas of which one at most checks the same value: `then` or `else`, by what `if` said. */
  choices: SchemaNode[][];
}

const FALLBACK_BASE = 'cap-schema:/schema.json';

/**
 * A JSON schema document as a graph, references resolved: the applicators ajv evaluates
 * an instance with, for a static bound on how many evaluations a value costs. Where a
 * keyword's meaning differs between dialects, both meanings are edges (an overcount is
 * safe; a missed edge would not be).
 */
export function schemaGraph(root: unknown): SchemaNode {
  const resources = new Map<string, unknown>();
  const anchors = new Map<string, unknown>();
  const dynamic = new Map<string, unknown[]>();
  const bases = new Map<object, string>();
  index(root, FALLBACK_BASE, resources, anchors, dynamic, bases, isDraft04(root) ? 'id' : '$id');
  const nodes = new Map<unknown, SchemaNode>();
  const leaf: SchemaNode = { here: [], members: new Map(), patterns: new Map(), choices: [] };
  const pending: [unknown, SchemaNode][] = [];
  const nodeOf = (schema: unknown): SchemaNode => {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return leaf;
    let node = nodes.get(schema);
    if (!node) {
      node = { here: [], members: new Map(), patterns: new Map(), choices: [] };
      nodes.set(schema, node);
      pending.push([schema, node]);
    }
    return node;
  };
  // Schemas repeat their references (`#/$defs/node` a thousand times): each is resolved once.
  const resolved = new Map<string, unknown[]>();
  const targetsOf = (reference: string, base: string): unknown[] => {
    const key = `${base} ${reference}`;
    let targets = resolved.get(key);
    if (!targets) resolved.set(key, (targets = resolve(reference, base, resources, anchors)));
    return [...targets];
  };
  const top = nodeOf(root);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [schema, node] = next as [Record<string, unknown>, SchemaNode];
    const base = bases.get(schema) ?? FALLBACK_BASE;
    // ajv reads `then` and `else` only beside an `if`, and checks a value by one of them.
    const branches = 'if' in schema ? [schema.then, schema.else].filter((branch) => branch !== undefined) : [];
    if (branches.length > 0) node.choices.push(branches.map(nodeOf));
    for (const [keyword, value] of Object.entries(schema)) {
      for (const [step, target] of applications(keyword, value, schema)) {
        const add = (child: unknown) => (step.kind === 'here' ? node.here : step.kind === 'member' ? listOf(node.members, step.key) : listOf(node.patterns, step.pattern)).push(nodeOf(child));
        if (keyword === '$ref' || keyword === '$dynamicRef' || keyword === '$recursiveRef') {
          const targets = targetsOf(String(target), base);
          // A dynamic reference may land on any schema that declares its anchor: each is an edge.
          if (keyword === '$dynamicRef') targets.push(...(dynamic.get(String(target).replace(/^.*#/, '')) ?? []));
          if (keyword === '$recursiveRef') targets.push(...(dynamic.get('') ?? []));
          new Set(targets).forEach(add);
        } else add(target);
      }
    }
  }
  return top;
}

function listOf(lists: Map<string, SchemaNode[]>, key: string): SchemaNode[] {
  let list = lists.get(key);
  if (!list) lists.set(key, (list = []));
  return list;
}

/** The subschemas (or reference strings) a keyword of `schema` applies, and where. */
function applications(keyword: string, value: unknown, schema: Record<string, unknown>): [Step, unknown][] {
  const here: Step = { kind: 'here' };
  const member = (key: string): Step => ({ kind: 'member', key });
  const entries = typeof value === 'object' && value !== null ? Object.entries(value) : [];
  switch (keyword) {
    case '$ref':
    case '$dynamicRef':
    case '$recursiveRef':
      return typeof value === 'string' ? [[here, value]] : [];
    case 'allOf':
    case 'anyOf':
    case 'oneOf':
      return Array.isArray(value) ? value.map((schema) => [here, schema]) : [];
    case 'not':
    case 'if':
      return [[here, value]];
    case 'dependentSchemas':
    case 'dependencies':
      return entries.filter(([, schema]) => !Array.isArray(schema)).map(([, schema]) => [here, schema]);
    case 'properties':
      return entries.map(([name, schema]) => [member(`p:${name}`), schema]);
    case 'patternProperties':
      return entries.map(([pattern, schema]) => [{ kind: 'pattern', pattern }, schema]);
    case 'additionalProperties':
      return [[member(OTHER_PROPERTY), value]];
    case 'unevaluatedProperties':
      return [[member(ANY_PROPERTY), value]];
    case 'propertyNames':
      return [[member(PROPERTY_NAMES), value]];
    case 'items':
    case 'prefixItems':
      return Array.isArray(value) ? value.map((schema, position) => [member(`i:${position}`), schema]) : [[member(ANY_INDEX), value]];
    case 'additionalItems':
      // Past the listed items; beside a prefixItems (which draft-07 ignores and 2020-12 lists by), every item, to be safe.
      return [[member('prefixItems' in schema ? ANY_INDEX : OTHER_INDEX), value]];
    case 'unevaluatedItems':
    case 'contains':
      return [[member(ANY_INDEX), value]];
    default:
      return [];
  }
}

/** Every object of the document, by the base URI it is read in; the resources and anchors references name. */
function index(value: unknown, base: string, resources: Map<string, unknown>, anchors: Map<string, unknown>, dynamic: Map<string, unknown[]>, bases: Map<object, string>, idKeyword: '$id' | 'id'): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) index(item, base, resources, anchors, dynamic, bases, idKeyword);
    return;
  }
  const schema = value as Record<string, unknown>;
  const id = typeof schema[idKeyword] === 'string' ? (schema[idKeyword] as string) : undefined;
  if (id !== undefined && id.startsWith('#')) anchors.set(`${base}${id}`, schema);
  else if (id !== undefined) base = absolute(id, base) ?? base;
  if (!resources.has(base)) resources.set(base, schema);
  bases.set(schema, base);
  if (typeof schema.$anchor === 'string') anchors.set(`${base}#${schema.$anchor}`, schema);
  if (typeof schema.$dynamicAnchor === 'string') {
    anchors.set(`${base}#${schema.$dynamicAnchor}`, schema);
    dynamic.set(schema.$dynamicAnchor, [...(dynamic.get(schema.$dynamicAnchor) ?? []), schema]);
  }
  if (schema.$recursiveAnchor === true) dynamic.set('', [...(dynamic.get('') ?? []), schema]);
  for (const [key, child] of Object.entries(schema)) if (!DATA_KEYWORDS.has(key)) index(child, base, resources, anchors, dynamic, bases, idKeyword);
}

/** Draft-04 names a schema resource by `id`, as ajv-draft-04 reads it: a reference to one missed here would go uncounted. */
function isDraft04(root: unknown): boolean {
  return typeof root === 'object' && root !== null && String((root as { $schema?: unknown }).$schema ?? '').includes('draft-04');
}

/** A URI without its fragment, or undefined when it is none. */
function absolute(reference: string, base: string): string | undefined {
  try {
    const url = new URL(reference, base);
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

/** The schemas a reference names in this document: none when it leads outside (a meta-schema ajv holds). */
function resolve(reference: string, base: string, resources: Map<string, unknown>, anchors: Map<string, unknown>): unknown[] {
  const resource = absolute(reference, base);
  if (resource === undefined) return [];
  const hash = reference.includes('#') ? reference.slice(reference.indexOf('#') + 1) : '';
  const start = resources.get(resource);
  if (hash === '') return start === undefined ? [] : [start];
  if (!hash.startsWith('/')) {
    const anchored = anchors.get(`${resource}#${safeDecode(hash)}`);
    return anchored === undefined ? [] : [anchored];
  }
  let target: unknown = start;
  for (const token of hash.slice(1).split('/')) {
    const key = safeDecode(token).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof target !== 'object' || target === null || !Object.hasOwn(target, key)) return [];
    target = (target as Record<string, unknown>)[key];
  }
  return [target];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
