import { GraphQLError, Kind, getOperationAST, parse, type DocumentNode, type ExecutionArgs, type ExecutionResult, type FragmentDefinitionNode, type SelectionSetNode, type ValidationRule } from 'graphql';
import { createComplexityRule, fieldExtensionsEstimator, simpleEstimator } from 'graphql-query-complexity';
import { DATASET_LIMITS } from '../../../application/data/dataset.js';
import { jsonLongerThan } from '../../../domain/data/json-length.js';
import type { ValueBudget } from './value-budget.js';

/** How deep fields may nest below an operation: the introspection query GraphiQL and other tools send needs exactly 15. */
export const MAX_QUERY_DEPTH = 15;
/** Aliases let one small query ask for the same large list many times over. */
export const MAX_QUERY_ALIASES = 20;
/** Estimated field values in a result: list fields count their rows (after `limit` and `offset`) times the fields asked of each. About half a second of the event loop at most: larger results are paged. */
export const MAX_QUERY_COST = 50_000;
/** Tokens one document may hold: the introspection query tools send has under 200, and parsing 10,000 takes a few milliseconds. */
export const MAX_QUERY_TOKENS = 10_000;
/** Operations and fragments one document may hold: each is validated in full, though one operation runs. */
export const MAX_QUERY_DEFINITIONS = 100;
/**
 * Values one answer may hold, counted as it is built (ValueBudget), lists inside items by
 * their elements: twice the estimate's limit, so that what it lets through passes when those
 * lists hold a few elements each.
 */
export const MAX_RESULT_VALUES = 2 * MAX_QUERY_COST;
/**
 * Characters of JSON one query's answer may take: what a dataset may hold, so any one
 * dataset can be read whole. The estimate above counts values, not their size: twenty
 * aliases of a dataset of large items made an answer past what a string can hold (a 500,
 * after the reactor had taken gigabytes to build it).
 */
export const MAX_RESULT_LENGTH = DATASET_LIMITS.datasetBytes;
/** Braces nested deeper than this are refused before parsing: a parser descends once per level. */
const MAX_BRACE_DEPTH = 64;

/**
 * Bounds on what one GraphQL operation may ask for, checked before anything executes,
 * so one query can neither exhaust memory nor hold the event loop that static files
 * are served from. Refusals come back in the `errors` array, with a code in extensions.
 */
export function queryLimitRules(variables: Record<string, unknown> | undefined, operationName: string | undefined): ValidationRule[] {
  return [
    depthLimit(MAX_QUERY_DEPTH),
    aliasLimit(MAX_QUERY_ALIASES),
    (context) =>
      reportingItsThrows(createComplexityRule({
        maximumComplexity: MAX_QUERY_COST,
        variables: variables ?? {},
        // graphql-query-complexity reads the name of every operation when given one to pick
        // out, and an operation without a name made that a TypeError (a 500). Then every
        // operation is estimated; graphql-http refuses the name it does not find (400).
        ...(operationName && everyOperationNamed(context.getDocument()) ? { operationName } : {}),
        estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
        createError: (max, actual) =>
          new GraphQLError(`the query would produce about ${actual} values, more than the limit of ${max}; ask for fewer fields, fewer aliases, or page with limit and offset`, {
            extensions: { code: 'QUERY_TOO_COSTLY' },
          }),
      }))(context),
  ];
}

/**
 * The refusal of an answer past its limits, measured before it is serialized: one whose
 * typed fields passed their budget of values (`values`), or a query's whose JSON would
 * pass MAX_RESULT_LENGTH; undefined when it fits. A mutation's answer is always sent,
 * its writes being done: with the error beside it when fields were left null.
 */
export function refusedResult(args: ExecutionArgs, result: ExecutionResult, values: ValueBudget): GraphQLError[] | ExecutionResult | undefined {
  const query = getOperationAST(args.document, args.operationName)?.operation === 'query';
  if (values.exceeded) {
    const error = new GraphQLError(`the answer holds more than ${MAX_RESULT_VALUES} values, its lists counted; ask for fewer fields, fewer aliases, or page with limit and offset`, { extensions: { code: 'QUERY_TOO_COSTLY' } });
    return query ? [error] : { ...result, errors: [...(result.errors ?? []), error] };
  }
  if (!query || !jsonLongerThan(result.data, MAX_RESULT_LENGTH)) return undefined;
  return [
    new GraphQLError(`the answer would take more than ${MAX_RESULT_LENGTH / 1024 / 1024} MiB of JSON; ask for fewer fields or aliases, or page with limit and offset`, {
      extensions: { code: 'QUERY_TOO_COSTLY' },
    }),
  ];
}

function everyOperationNamed(document: DocumentNode): boolean {
  return document.definitions.every((definition) => definition.kind !== Kind.OPERATION_DEFINITION || definition.name !== undefined);
}

/**
 * graphql-query-complexity throws, rather than reports, when an operation spells out more
 * than 10,000 fields (aliases, or fragments spread inside fragments): thrown from a
 * validation rule, that became a 500. Here it is a refusal like the others.
 */
function reportingItsThrows(rule: ValidationRule): ValidationRule {
  return (context) => {
    const visitor = rule(context) as { OperationDefinition: { enter: (...args: unknown[]) => unknown; leave: (...args: unknown[]) => unknown } };
    const { enter, leave } = visitor.OperationDefinition;
    let refused = false;
    visitor.OperationDefinition = {
      enter(...args) {
        try {
          return enter.apply(this, args);
        } catch (error) {
          if (!(error instanceof GraphQLError)) throw error;
          refused = true;
          context.reportError(new GraphQLError(`the query spells out too many fields to estimate (${error.message}); ask for fewer fields or aliases, or nest fewer fragments`, { extensions: { code: 'QUERY_TOO_COSTLY' } }));
        }
      },
      leave(...args) {
        // Its estimate stopped part-way: nothing more to say of this operation.
        if (!refused) return leave.apply(this, args);
        refused = false;
        return undefined;
      },
    };
    return visitor as ReturnType<ValidationRule>;
  };
}

/** Whether a query text nests braces deeper than a parser should be asked to descend; strings and comments aside. */
export function nestsTooDeep(query: string): boolean {
  let depth = 0;
  for (let i = 0; i < query.length; i++) {
    const char = query[i];
    if (char === '#') while (i < query.length && query[i] !== '\n') i++;
    else if (char === '"') {
      const block = query.startsWith('"""', i);
      for (i += block ? 3 : 1; i < query.length && !(block ? query.startsWith('"""', i) : query[i] === '"'); i++) if (query[i] === '\\') i++;
      if (block) i += 2;
    } else if (char === '{' || char === '(' || char === '[') {
      if (++depth > MAX_BRACE_DEPTH) return true;
    } else if (char === '}' || char === ')' || char === ']') depth--;
  }
  return false;
}

function depthLimit(max: number): ValidationRule {
  return (context) => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    return {
      OperationDefinition(operation) {
        const depth = depthOf(operation.selectionSet, fragments, new Set(), new Map());
        if (depth > max) context.reportError(new GraphQLError(`the query nests ${depth} levels deep, more than the limit of ${max}`, { nodes: [operation], extensions: { code: 'QUERY_TOO_DEEP' } }));
      },
    };
  };
}

/**
 * The depth of a selection set, each fragment's measured once (`measured`): a fragment
 * spreading the one before it twice, thirty deep, is a 1 KB query that walked again at
 * each spread took 2^30 steps, holding the event loop for half an hour.
 */
function depthOf(set: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, visiting: Set<string>, measured: Map<string, number>): number {
  let deepest = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) deepest = Math.max(deepest, 1 + (selection.selectionSet ? depthOf(selection.selectionSet, fragments, visiting, measured) : 0));
    else if (selection.kind === Kind.INLINE_FRAGMENT) deepest = Math.max(deepest, depthOf(selection.selectionSet, fragments, visiting, measured));
    else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      // A cycle is graphql's own NoFragmentCycles error; here it just ends the walk.
      if (!fragment || visiting.has(name)) continue;
      let depth = measured.get(name);
      if (depth === undefined) {
        visiting.add(name);
        depth = depthOf(fragment.selectionSet, fragments, visiting, measured);
        visiting.delete(name);
        measured.set(name, depth);
      }
      deepest = Math.max(deepest, depth);
    }
  }
  return deepest;
}

function aliasLimit(max: number): ValidationRule {
  return (context) => {
    let aliases = 0;
    return {
      Field(field) {
        if (field.alias && ++aliases === max + 1) context.reportError(new GraphQLError(`the query uses more than ${max} aliases`, { nodes: [field], extensions: { code: 'QUERY_TOO_MANY_ALIASES' } }));
      },
    };
  };
}

/**
 * graphql's parse, bounded: a 0.9 MB document of 8,000 operations (under the body limit)
 * took seconds of the event loop to parse and validate, the other limits coming after.
 */
export function parseBounded(source: Parameters<typeof parse>[0], options?: Parameters<typeof parse>[1]): DocumentNode {
  let document: DocumentNode;
  try {
    document = parse(source, { ...options, maxTokens: MAX_QUERY_TOKENS });
  } catch (error) {
    if (error instanceof GraphQLError && error.message.includes('tokens. Parsing aborted')) {
      throw new GraphQLError(`the query holds more than ${MAX_QUERY_TOKENS} tokens`, { extensions: { code: 'QUERY_TOO_LARGE' } });
    }
    throw error;
  }
  if (document.definitions.length > MAX_QUERY_DEFINITIONS) {
    throw new GraphQLError(`the query holds ${document.definitions.length} operations and fragments, more than the limit of ${MAX_QUERY_DEFINITIONS}`, { extensions: { code: 'QUERY_TOO_LARGE' } });
  }
  return document;
}
